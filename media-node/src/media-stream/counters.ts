import type { NodeMetrics } from '../metrics.js';
import type { MalformedReason } from './frames.js';

/** Why a media stream frame was dropped (the dropped-frames metric's label). */
export type DropReason =
  'slow_app' | 'queue_full' | 'not_bidirectional' | 'gateway_audio' | 'late_playout';

/** The media streams' metrics as a stream counts into them; its frames without prom-client. */
export interface StreamCounters {
  toApp(): void;
  fromApp(): void;
  /** `count` frames (chunks, for late_playout) dropped; 1 by default. */
  dropped(reason: DropReason, count?: number): void;
  malformed(reason: MalformedReason): void;
  /** Streams open now. */
  open(count: number): void;
}

export function streamCounters(metrics: NodeMetrics): StreamCounters {
  const frames = metrics.mediaFramesUncollected;
  return {
    toApp: () => void frames.to_app++,
    fromApp: () => void frames.from_app++,
    dropped: (reason, count = 1) => metrics.mediaStreamDroppedFrames.inc({ reason }, count),
    malformed: (reason) => metrics.mediaStreamMalformedFrames.inc({ reason }),
    open: (count) => metrics.mediaStreams.set(count),
  };
}
