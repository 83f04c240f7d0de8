// Reading the header of a WAV someone else writes: FreeSWITCH (libsndfile) leaves the sizes at
// 0 until it closes the file, and a finished file may carry chunks before or after the data.
import { describe, expect, it } from 'vitest';
import { readWavLayout, wavDataBytes, wavHeader } from '../src/index.js';

/** A RIFF chunk: id, little-endian size, body (padded to even). */
const chunk = (id: string, body: Buffer) => {
  const head = Buffer.alloc(8);
  head.write(id, 0, 'ascii');
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body, Buffer.alloc(body.length % 2)]);
};
const samples = (n: number) => Buffer.alloc(n * 2, 1);

describe('readWavLayout and wavDataBytes', () => {
  it('a file still being written (sizes 0): every whole sample on disk counts', () => {
    const file = Buffer.concat([wavHeader(0, 16000), samples(800), Buffer.from([7])]);
    const layout = readWavLayout(file);
    expect(layout).toMatchObject({
      sampleRate: 16000,
      channels: 1,
      dataOffset: 44,
      declaredBytes: 0,
    });
    expect(wavDataBytes(layout!, file.length)).toBe(1600);
  });

  it('a LIST chunk before the data moves the samples; a finished size excludes chunks after them', () => {
    const fmt = wavHeader(0, 8000).subarray(12, 36);
    const data = chunk('data', samples(100));
    const file = Buffer.concat([
      Buffer.from('RIFF\0\0\0\0WAVE', 'latin1'),
      fmt,
      chunk('LIST', Buffer.from('INFOISFT\x05\0\0\0test\0', 'latin1')),
      data,
      chunk('LIST', Buffer.alloc(20)),
    ]);
    const layout = readWavLayout(file);
    expect(layout?.dataOffset).toBe(12 + 24 + 8 + 18 + 8);
    expect(layout?.declaredBytes).toBe(200);
    expect(wavDataBytes(layout!, file.length)).toBe(200);
  });

  it('not a WAV, or its header not yet there: undefined', () => {
    expect(readWavLayout(Buffer.alloc(0))).toBeUndefined();
    expect(readWavLayout(wavHeader(0, 8000).subarray(0, 30))).toBeUndefined();
    expect(readWavLayout(Buffer.from('ID3 not a wave file at all'))).toBeUndefined();
  });
});
