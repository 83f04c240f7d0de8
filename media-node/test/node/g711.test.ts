// G.711 μ-law against the standard's own definition (ITU-T G.711, Table 2a), computed here
// independently of the codec's bias arithmetic. A code is sent inverted; inverted, its bits are
// sign (1 = negative), segment e (3 bits) and step m (4 bits). At the standard's 14-bit scale
// (full scale 8159) the decoder's output magnitude is (2m + 33)·2^e − 33, and the encoder's
// segment e (e ≥ 1) begins at the decision value 2^(e + 5) − 33: 31, 95, 223, 479, 991, 2015,
// 4063. 16-bit PCM is that scale times 4.
import { describe, expect, it } from 'vitest';
import { decodeSample, decodeToL16, encodeL16, encodeSample } from '../../src/media-stream/g711.js';

/** The standard's decoder output for a code, in 16-bit PCM. */
function standardValue(code: number): number {
  const inverted = ~code & 0xff;
  const segment = (inverted >> 4) & 0x07;
  const step = inverted & 0x0f;
  const magnitude = ((2 * step + 33) * 2 ** segment - 33) * 4;
  return inverted & 0x80 ? 0 - magnitude : magnitude;
}

/** The code of sign, segment and step, as sent (inverted). */
const codeOf = (negative: boolean, segment: number, step: number): number =>
  ~((negative ? 0x80 : 0) | (segment << 4) | step) & 0xff;

describe('G.711 μ-law', () => {
  it('encodes silence as 0xFF, and 0xFF and 0x7F (negative zero) both decode to 0', () => {
    expect(encodeSample(0)).toBe(0xff);
    expect(decodeSample(0xff)).toBe(0);
    expect(decodeSample(0x7f)).toBe(0);
  });

  it('clips full scale: 32767 is 0x80, -32768 and -32767 are 0x00', () => {
    expect(encodeSample(32_767)).toBe(0x80);
    expect(encodeSample(-32_768)).toBe(0x00);
    expect(encodeSample(-32_767)).toBe(0x00);
    expect(decodeSample(0x80)).toBe(32_124);
    expect(decodeSample(0x00)).toBe(-32_124);
  });

  it.each([1, 2, 3, 4, 5, 6, 7])(
    'segment %i begins at the decision value 2^(e+5) − 33 (×4 at 16 bits), either sign',
    (segment) => {
      const boundary = (2 ** (segment + 5) - 33) * 4;
      expect(encodeSample(boundary - 1)).toBe(codeOf(false, segment - 1, 15));
      expect(encodeSample(boundary)).toBe(codeOf(false, segment, 0));
      expect(encodeSample(-(boundary - 1))).toBe(codeOf(true, segment - 1, 15));
      expect(encodeSample(-boundary)).toBe(codeOf(true, segment, 0));
    },
  );

  it("decodes all 256 codes to the standard's values, and re-encodes each to itself", () => {
    for (let code = 0; code < 256; code++) {
      expect(decodeSample(code), `code ${code}`).toBe(standardValue(code));
      // Negative zero has no sample of its own: 0 is positive zero.
      expect(encodeSample(decodeSample(code)), `code ${code}`).toBe(code === 0x7f ? 0xff : code);
    }
  });

  it('encodes one channel of interleaved L16 and decodes μ-law to L16, little-endian', () => {
    const stereo = Buffer.alloc(8);
    [0, 32_767, -32_768, 124].forEach((sample, i) => stereo.writeInt16LE(sample, i * 2));
    expect([...encodeL16(stereo, 2, 0)]).toEqual([0xff, 0x00]);
    expect([...encodeL16(stereo, 2, 1)]).toEqual([0x80, codeOf(false, 1, 0)]);
    const pcm = decodeToL16(Buffer.from([0xff, 0x80, 0x00]));
    expect([0, 1, 2].map((i) => pcm.readInt16LE(i * 2))).toEqual([0, 32_124, -32_124]);
  });
});
