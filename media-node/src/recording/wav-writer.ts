import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { WAV_HEADER_BYTES, wavHeader } from '@voicegw/shared';

/** Audio is written in batches at most this far apart: a few writes a second per call, not 50. */
const FLUSH_MS = 100;

/**
 * A mono 16-bit PCM WAV file written while the audio arrives. The header goes first (0 bytes of
 * data); each batch of samples is appended and then the RIFF and data sizes are patched, so the
 * file on disk is at every moment a valid WAV of what has been written so far (a reader that
 * catches it between the two writes sees a header one batch behind, which is still valid).
 */
export class WavWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** A byte of a sample split across two frames, kept until its other half arrives. */
  private carry: Buffer | undefined;
  private written = 0;
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> = Promise.resolve();
  private finished: Promise<number> | undefined;
  /** The last write that failed (disk full...): the file keeps what was written before it. */
  failure: unknown;

  private constructor(
    private readonly file: FileHandle,
    readonly path: string,
    readonly sampleRate: number,
  ) {}

  /** Creates the file (and its directory) with an empty WAV in it. */
  static async create(path: string, sampleRate: number): Promise<WavWriter> {
    await mkdir(dirname(path), { recursive: true });
    const file = await open(path, 'w');
    try {
      await file.write(wavHeader(0, sampleRate), 0, WAV_HEADER_BYTES, 0);
    } catch (err) {
      await file.close();
      throw err;
    }
    return new WavWriter(file, path, sampleRate);
  }

  /** Bytes of audio received so far (written or about to be). */
  get dataBytes(): number {
    return this.written + this.pendingBytes;
  }

  /** Seconds of audio received so far. */
  get durationSec(): number {
    return this.dataBytes / (this.sampleRate * 2);
  }

  /** Queues L16 samples (little-endian, as mod_audio_stream sends them). Ignored once finished. */
  append(frame: Buffer): void {
    if (this.finished) return;
    let data = this.carry ? Buffer.concat([this.carry, frame]) : frame;
    this.carry = undefined;
    if (data.length % 2 === 1) {
      this.carry = data.subarray(data.length - 1);
      data = data.subarray(0, data.length - 1);
    }
    if (data.length === 0) return;
    // ws hands out views of its receive buffer: copy before keeping it past this call.
    this.pending.push(Buffer.from(data));
    this.pendingBytes += data.length;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flush().catch((err: unknown) => (this.failure = err));
    }, FLUSH_MS);
  }

  /** Writes what is left, patches the sizes and closes the file; resolves with the data bytes. */
  finish(): Promise<number> {
    this.finished ??= (async () => {
      clearTimeout(this.timer);
      this.timer = undefined;
      try {
        await this.flush().catch((err: unknown) => (this.failure = err));
      } finally {
        await this.file.close();
      }
      return this.written;
    })();
    return this.finished;
  }

  /** One batch at a time, in order: append the samples, then patch the header. */
  private flush(): Promise<void> {
    const run = this.flushing.then(async () => {
      if (this.pendingBytes === 0) return;
      const batch = Buffer.concat(this.pending, this.pendingBytes);
      this.pending = [];
      this.pendingBytes = 0;
      await this.file.write(batch, 0, batch.length, WAV_HEADER_BYTES + this.written);
      this.written += batch.length;
      await this.file.write(wavHeader(this.written, this.sampleRate), 0, WAV_HEADER_BYTES, 0);
    });
    // A failed write must not wedge later batches or finish().
    this.flushing = run.catch(() => undefined);
    return run;
  }
}
