import type { NodeMetrics } from '../metrics.js';
import type { MalformedReason } from './frames.js';

/** Why a media stream frame was dropped (the dropped-frames metric's label). */
export type DropReason = 'slow_app' | 'queue_full' | 'not_bidirectional' | 'gateway_audio';

/** The media streams' metrics as a stream counts into them; the hot ones bound once. */
export interface StreamCounters {
  toApp(): void;
  fromApp(): void;
  dropped(reason: DropReason): void;
  malformed(reason: MalformedReason): void;
  /** Streams open now. */
  open(count: number): void;
}

export function streamCounters(metrics: NodeMetrics): StreamCounters {
  const toApp = metrics.mediaStreamFrames.labels('to_app');
  const fromApp = metrics.mediaStreamFrames.labels('from_app');
  return {
    toApp: () => toApp.inc(),
    fromApp: () => fromApp.inc(),
    dropped: (reason) => metrics.mediaStreamDroppedFrames.inc({ reason }),
    malformed: (reason) => metrics.mediaStreamMalformedFrames.inc({ reason }),
    open: (count) => metrics.mediaStreams.set(count),
  };
}
