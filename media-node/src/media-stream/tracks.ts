import type { StreamTrack } from '@voicegw/shared';
import type { MediaTrack } from './frames.js';
import { encodeL16 } from './g711.js';
import { SAMPLES_PER_CHUNK } from './playout.js';

/** How FreeSWITCH streams a track choice, and which channel carries which track. */
export interface StreamLayout {
  /** uuid_audio_stream's mix: `mono` is the caller alone; `stereo` is caller left, call right. */
  readonly mix: 'mono' | 'stereo';
  readonly channels: 1 | 2;
  readonly tracks: readonly { readonly track: MediaTrack; readonly channel: number }[];
}

export function streamLayout(track: StreamTrack): StreamLayout {
  switch (track) {
    case 'inbound':
      return { mix: 'mono', channels: 1, tracks: [{ track: 'inbound', channel: 0 }] };
    case 'outbound':
      return { mix: 'stereo', channels: 2, tracks: [{ track: 'outbound', channel: 1 }] };
    case 'both':
      return {
        mix: 'stereo',
        channels: 2,
        tracks: [
          { track: 'inbound', channel: 0 },
          { track: 'outbound', channel: 1 },
        ],
      };
  }
}

/** Where a track's media frames go, ready to send: μ-law, chunk number and timestamp. */
export interface ChunkSink {
  media(track: MediaTrack, mulaw: Buffer, chunk: number, timestampMs: number): void;
}

/**
 * One track of the call's audio on its way to the application: the channel's samples of each
 * L16 frame FreeSWITCH sends, as μ-law cut in 20 ms chunks (a resampled frame may be a few
 * samples off), numbered from 1, stamped with the ms of the track's audio before it.
 */
export class TrackOutput {
  private chunk = 0;
  private samples = 0;
  private pending: Buffer | undefined;

  constructor(
    readonly track: MediaTrack,
    private readonly channel: number,
    private readonly channels: number,
    /** Gets each whole chunk a frame completes. */
    private readonly sink: ChunkSink,
  ) {}

  /** Takes one frame from FreeSWITCH. */
  frame(pcm: Buffer): void {
    const encoded = encodeL16(pcm, this.channels, this.channel);
    // The usual frame is one whole chunk: no copy, no cut.
    if (!this.pending && encoded.length === SAMPLES_PER_CHUNK) return this.next(encoded);
    let audio = this.pending ? Buffer.concat([this.pending, encoded]) : encoded;
    while (audio.length >= SAMPLES_PER_CHUNK) {
      this.next(audio.subarray(0, SAMPLES_PER_CHUNK));
      audio = audio.subarray(SAMPLES_PER_CHUNK);
    }
    this.pending = audio.length > 0 ? audio : undefined;
  }

  private next(chunk: Buffer): void {
    this.sink.media(this.track, chunk, ++this.chunk, this.samples / 8);
    this.samples += SAMPLES_PER_CHUNK;
  }
}
