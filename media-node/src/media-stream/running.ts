import type { StreamStopReason } from '@voicegw/shared';
import { WebSocket, type RawData } from 'ws';
import type { RelayHost } from './host.js';
import {
  dtmfFrame,
  markFrame,
  MAX_TEXT_BYTES,
  mediaFrame,
  parseAppFrame,
  startFrame,
  stopFrame,
  type MediaTrack,
  type StartDetails,
  type StreamIdentity,
} from './frames.js';
import { Playout, type PlayoutSink } from './playout.js';
import { streamLayout, TrackOutput, type ChunkSink } from './tracks.js';
import type { StreamRequest } from './types.js';

/** Frames to a slow application are dropped while its socket holds more than this unsent. */
export const SLOW_APP_BYTES = 512 * 1024;

/** What a stream that ran reports in stream.stopped. */
export interface RunStats {
  readonly durationMs: number;
  readonly framesSent: number;
  readonly framesReceived: number;
}

/**
 * A media stream while both sockets are open: FreeSWITCH's L16 frames go to the application as
 * media frames of the tracks it asked for; on a bidirectional stream the application's audio
 * and marks go through the playout to FreeSWITCH (`streamAudio` text frames, one 20 ms chunk a
 * tick). One sequence number counts every frame to the application.
 */
export class Running implements PlayoutSink, ChunkSink {
  private seq = 0;
  private framesSent = 0;
  private framesReceived = 0;
  private readonly startedAt = Date.now();
  private readonly outputs: readonly TrackOutput[];
  private readonly playout: Playout | undefined;

  constructor(
    private readonly host: Pick<RelayHost, 'pacer' | 'count' | 'holding'>,
    private readonly id: StreamIdentity,
    request: StreamRequest,
    readonly app: WebSocket,
    private readonly fs: WebSocket,
    /** FreeSWITCH's side closed on its own. */
    private readonly lost: () => void,
  ) {
    const layout = streamLayout(request.track);
    this.outputs = layout.tracks.map(
      (t) => new TrackOutput(t.track, t.channel, layout.channels, this),
    );
    this.playout = request.bidirectional ? new Playout(host.pacer, this) : undefined;
  }

  /** Sends `start` and lets the audio flow. */
  begin(details: Omit<StartDetails, 'tracks'>): void {
    const tracks = this.outputs.map((o) => o.track);
    this.toApp(startFrame(this.id, ++this.seq, { ...details, tracks }));
    this.fs.on('message', this.onFreeswitch);
    this.fs.on('close', this.lost);
    this.app.on('message', this.onApp);
  }

  dtmf(digit: string | undefined): void {
    if (digit) this.toApp(dtmfFrame(this.id, ++this.seq, digit, new Date()));
  }

  /** The session's own audio takes the call: the application's queue is dropped, marks answered. */
  interrupt(): void {
    this.playout?.clear();
  }

  /** Nothing flows any more; the sockets stay for finish(). */
  halt(): void {
    this.fs.off('message', this.onFreeswitch);
    this.fs.off('close', this.lost);
    this.app.off('message', this.onApp);
    this.playout?.close();
  }

  /** The application's side: `stop` and a close, unless the application closed it. */
  finish(reason: StreamStopReason): RunStats {
    if (reason !== 'closed_by_app') {
      this.toApp(stopFrame(this.id, ++this.seq, reason));
      this.app.close(reason === 'error' ? 1011 : 1000);
    }
    return {
      durationMs: Date.now() - this.startedAt,
      framesSent: this.framesSent,
      framesReceived: this.framesReceived,
    };
  }

  /** FreeSWITCH's side, once the module has been told to stop (or the call is gone). */
  dropFreeswitch(): void {
    this.fs.terminate();
  }

  private readonly onFreeswitch = (data: RawData, isBinary: boolean): void => {
    // A text frame would be the metadata of the start, and there is none.
    if (!isBinary) return;
    const pcm = toBuffer(data);
    for (const output of this.outputs) output.frame(pcm);
  };

  /** One 20 ms chunk of a track to the application, unless its socket is backed up. */
  media(track: MediaTrack, mulaw: Buffer, chunk: number, timestampMs: number): void {
    if (this.app.bufferedAmount > SLOW_APP_BYTES) {
      this.host.count.dropped('slow_app');
      return;
    }
    const payload = mulaw.toString('base64');
    this.toApp(mediaFrame(this.id, ++this.seq, track, chunk, timestampMs, payload));
    this.framesSent++;
    this.host.count.toApp();
  }

  private readonly onApp = (data: RawData, isBinary: boolean): void => {
    const { count } = this.host;
    if (isBinary) return count.malformed('binary');
    const bytes = toBuffer(data);
    if (bytes.length > MAX_TEXT_BYTES) return count.malformed('text_too_large');
    const frame = parseAppFrame(bytes.toString('utf8'), this.id);
    switch (frame.kind) {
      case 'malformed':
        return count.malformed(frame.reason);
      case 'media':
        this.framesReceived++;
        count.fromApp();
        if (!this.playout) return count.dropped('not_bidirectional');
        if (this.host.holding(this.id.sessionId)) return count.dropped('gateway_audio');
        if (!this.playout.push(frame.payload)) count.dropped('queue_full');
        return;
      case 'mark':
        if (!this.playout) return count.dropped('not_bidirectional');
        return this.playout.mark(frame.name);
      case 'clear':
        return this.playout?.clear();
    }
  };

  /** The playout's chunk to FreeSWITCH. */
  play(l16: Buffer): void {
    if (this.fs.readyState !== WebSocket.OPEN) return;
    this.fs.send(
      '{"type":"streamAudio","data":{"audioDataType":"raw","sampleRate":8000,' +
        `"audioData":"${l16.toString('base64')}"}}`,
    );
  }

  /** The playout answers one of the application's marks. */
  marked(name: string): void {
    this.toApp(markFrame(this.id, ++this.seq, name));
  }

  /** The playout dropped chunks to get back to real time. */
  dropped(chunks: number): void {
    this.host.count.dropped('late_playout', chunks);
  }

  private toApp(text: string): void {
    if (this.app.readyState === WebSocket.OPEN) this.app.send(text);
  }
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
