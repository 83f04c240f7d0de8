import { createMetricsRegistry } from '@voicegw/shared';
import { Counter, Gauge, type Registry } from 'prom-client';

/** The media node's Prometheus metrics, on a registry of its own. */
export class NodeMetrics {
  readonly registry: Registry = createMetricsRegistry('media-node');

  readonly inboundCalls = new Counter({
    name: 'voicegw_media_inbound_calls_total',
    help: 'Inbound calls by outcome: accepted, rejected (no app for the DID), refused (draining or full).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  });

  readonly commands = new Counter({
    name: 'voicegw_media_commands_total',
    help: 'Commands executed, by command and outcome (ok, failed, unknown_session, expired).',
    labelNames: ['command', 'outcome'] as const,
    registers: [this.registry],
  });

  readonly hangups = new Counter({
    name: 'voicegw_media_hangups_total',
    help: 'call.hangup events published, by hangup_cause and whether synthetic (orphans).',
    labelNames: ['cause', 'synthetic'] as const,
    registers: [this.registry],
  });

  readonly eslReconnects = new Counter({
    name: 'voicegw_media_esl_reconnects_total',
    help: 'Event socket connections established after the first.',
    registers: [this.registry],
  });

  readonly eslConnected = new Gauge({
    name: 'voicegw_media_esl_connected',
    help: '1 while the event socket to FreeSWITCH is connected, 0 otherwise.',
    registers: [this.registry],
  });

  readonly activeSessions = new Gauge({
    name: 'voicegw_media_active_sessions',
    help: 'Sessions this node owns now.',
    registers: [this.registry],
  });

  readonly mediaStreams = new Gauge({
    name: 'voicegw_media_streams',
    help: 'Media streams open now, from stream/start to their stream.stopped or stream.failed.',
    registers: [this.registry],
  });

  /**
   * Media frames counted since the last scrape: a stream adds one per frame here, a plain
   * increment on its audio path, and a scrape moves them into `mediaStreamFrames`.
   */
  readonly mediaFramesUncollected = { to_app: 0, from_app: 0 };

  readonly mediaStreamFrames: Counter<'direction'> = new Counter({
    name: 'voicegw_media_stream_frames_total',
    help: 'Media frames of media streams: to_app (call audio sent), from_app (audio received).',
    labelNames: ['direction'] as const,
    registers: [this.registry],
    collect: () => {
      const uncollected = this.mediaFramesUncollected;
      for (const direction of ['to_app', 'from_app'] as const) {
        if (uncollected[direction] === 0) continue;
        this.mediaStreamFrames.inc({ direction }, uncollected[direction]);
        uncollected[direction] = 0;
      }
    },
  });

  readonly mediaStreamDroppedFrames = new Counter({
    name: 'voicegw_media_stream_dropped_frames_total',
    help:
      'Media stream frames dropped, by reason: slow_app (its socket buffered over 512 KiB), ' +
      'queue_full (over 60 s of its audio queued), not_bidirectional (its audio or mark on a ' +
      'listen-only stream), gateway_audio (its audio while a playback holds the call), ' +
      'late_playout (20 ms chunks of its audio dropped to get back to real time: after the ' +
      "node's 20 ms clock missed ticks, or standing queued a second while it kept pace).",
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });

  readonly mediaStreamMalformedFrames = new Counter({
    name: 'voicegw_media_stream_malformed_frames_total',
    help: 'Frames from media stream applications ignored as malformed, by reason.',
    labelNames: ['reason'] as const,
    registers: [this.registry],
  });
}
