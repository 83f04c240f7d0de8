// A command's bytes that are not UTF-8 go through the simulator as they came (src/esl/raw-text.ts).
import { describe, expect, it } from 'vitest';
import { decodeBytes, encodeBytes } from '../src/esl/raw-text.js';

describe('raw text', () => {
  it('UTF-8 reads as itself; any other byte as U+DC00 + the byte, and back', () => {
    expect(decodeBytes(Buffer.from('é 😀 ok', 'utf8'))).toBe('é 😀 ok');
    // A lone lead byte, a lone continuation byte, an overlong '/', a surrogate's encoding.
    const bytes = Buffer.from([0x61, 0xc3, 0x62, 0x80, 0xc0, 0xaf, 0xed, 0xa0, 0x80, 0xc3, 0xa9]);
    const text = decodeBytes(bytes);
    expect(text).toBe('a\udcc3b\udc80\udcc0\udcaf\udced\udca0\udc80é');
    expect(encodeBytes(text)).toEqual(bytes);
    expect(encodeBytes('é 😀 ok')).toEqual(Buffer.from('é 😀 ok', 'utf8'));
  });
});
