// The playout's queue of audio bytes: first in first out across growth and compaction, its
// positions counting every byte, and nothing of what was pushed kept but a copy.
import { describe, expect, it } from 'vitest';
import { AudioFifo } from '../../src/media-stream/audio-fifo.js';

const bytes = (from: number, n: number): Buffer =>
  Buffer.from(Array.from({ length: n }, (_, i) => (from + i) % 251));

describe('audio FIFO', () => {
  it('gives back what was pushed, in order, however pushes and takes interleave and it grows', () => {
    const fifo = new AudioFifo();
    let pushed = 0;
    let taken = 0;
    const out = Buffer.alloc(700);
    for (let round = 0; round < 50; round++) {
      // Bursts of up to 3,000 bytes, drained unevenly: it grows, compacts and shrinks.
      const n = (round * 613) % 3000;
      fifo.push(bytes(pushed, n));
      pushed += n;
      const k = Math.min(fifo.length, (round * 389) % 700);
      fifo.take(k, out);
      expect(out.subarray(0, k)).toEqual(bytes(taken, k));
      taken += k;
      expect([fifo.start, fifo.end, fifo.length]).toEqual([taken, pushed, pushed - taken]);
    }
  });

  it('copies what is pushed: the pushed buffer may change afterwards', () => {
    const fifo = new AudioFifo();
    const piece = bytes(0, 160);
    fifo.push(piece);
    piece.fill(0);
    const out = Buffer.alloc(160);
    fifo.take(160, out);
    expect(out).toEqual(bytes(0, 160));
  });

  it('says whether the next bytes are quiet μ-law, and drops without copying', () => {
    const fifo = new AudioFifo();
    fifo.push(Buffer.alloc(160, 0xff));
    fifo.push(Buffer.alloc(160, 0x80));
    expect(fifo.quiet(160)).toBe(true);
    expect(fifo.quiet(161)).toBe(false);
    fifo.take(160);
    expect(fifo.quiet(160)).toBe(false);
    fifo.clear();
    expect([fifo.length, fifo.start, fifo.end]).toEqual([0, 320, 320]);
  });
});
