// One direction of a call's audio on the shared clock (media/clock.ts): 8 kHz samples in 1 s
// chunks, allocated only where something was written (a silent call costs nothing), mixed when
// two writers overlap, and forgotten once older than the track's horizon.
import { CALL_RATE, nowSample } from './clock.js';
import { mixInto } from './pcm.js';

const CHUNK = CALL_RATE;

export class Track {
  private readonly chunks = new Map<number, Int16Array>();

  /** `keep`: how many samples before now are remembered. */
  constructor(private readonly keep: number) {}

  /** Adds `pcm` starting at clock sample `at` (the future too: queued speech). */
  mix(at: number, pcm: Int16Array): void {
    for (let i = 0; i < pcm.length;) {
      const sample = at + i;
      const key = Math.floor(sample / CHUNK);
      const offset = sample - key * CHUNK;
      const n = Math.min(CHUNK - offset, pcm.length - i);
      mixInto(this.chunk(key), pcm.subarray(i, i + n), offset);
      i += n;
    }
  }

  /** `count` samples from clock sample `from`: silence where nothing was written. */
  read(from: number, count: number): Int16Array {
    const out = new Int16Array(count);
    for (let i = 0; i < count;) {
      const sample = from + i;
      const key = Math.floor(sample / CHUNK);
      const offset = sample - key * CHUNK;
      const n = Math.min(CHUNK - offset, count - i);
      const chunk = this.chunks.get(key);
      if (chunk) out.set(chunk.subarray(offset, offset + n), i);
      i += n;
    }
    return out;
  }

  private chunk(key: number): Int16Array {
    let chunk = this.chunks.get(key);
    if (!chunk) {
      chunk = new Int16Array(CHUNK);
      this.chunks.set(key, chunk);
      this.forget(nowSample() - this.keep);
    }
    return chunk;
  }

  private forget(before: number): void {
    const limit = Math.floor(before / CHUNK);
    for (const key of this.chunks.keys()) if (key < limit) this.chunks.delete(key);
  }
}
