// G.711 μ-law (ITU-T G.711, 1988), the codec of both vendors' media streams: 8-bit codes for
// 14-bit linear samples, here scaled to and from 16-bit PCM. The classic bias-and-segment form:
// the magnitude plus a bias of 33 (132 at 16-bit scale) has its highest set bit in one of eight
// segments, which gives the exponent; the next four bits are the step. Codes go out inverted.

const BIAS = 0x84;
/** The largest magnitude that still fits the top segment once biased (32635 + 132 = 32767). */
const CLIP = 32635;

/** The μ-law code of one 16-bit sample (clipped to ±32635 first, as G.711 clips). */
export function encodeSample(sample: number): number {
  let magnitude = sample;
  let sign = 0;
  if (magnitude < 0) {
    sign = 0x80;
    magnitude = -magnitude;
  }
  if (magnitude > CLIP) magnitude = CLIP;
  magnitude += BIAS;
  // The segment is where the highest set bit is among bits 7..14 (0 below bit 8).
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** The 16-bit sample a μ-law code stands for (the middle of its step). */
export function decodeSample(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << exponent) - BIAS;
  // 0 - magnitude: negative zero (0x7F) is the sample 0, not -0.
  return u & 0x80 ? 0 - magnitude : magnitude;
}

/** Every code's sample as an unsigned 16-bit pattern, and every pattern's code: 64 KiB. */
const DECODED = Uint16Array.from({ length: 256 }, (_, code) => decodeSample(code) & 0xffff);
const ENCODED = Uint8Array.from({ length: 65_536 }, (_, u) => encodeSample((u << 16) >> 16));
/** Codes whose sample is at most 128 of 32768 (below −48 dBFS): inaudible on a call. */
const QUIET = Uint8Array.from({ length: 256 }, (_, code) => +(Math.abs(decodeSample(code)) <= 128));

// The loops below run for every 20 ms of every stream: bytes are read and written one by one
// with table look-ups, which V8 compiles to plain loads, unlike readInt16LE's checked calls.

/**
 * One channel of L16 little-endian audio (`channels` interleaved, this one at `channel`) as
 * μ-law, one byte a sample.
 */
export function encodeL16(pcm: Buffer, channels = 1, channel = 0): Buffer {
  const frame = channels * 2;
  const samples = Math.floor(pcm.length / frame);
  const out = Buffer.allocUnsafe(samples);
  for (let i = 0, at = channel * 2; i < samples; i++, at += frame) {
    out[i] = ENCODED[(pcm[at] ?? 0) | ((pcm[at + 1] ?? 0) << 8)] ?? 0xff;
  }
  return out;
}

/** μ-law as mono L16 little-endian, two bytes a sample, into `out` (a new buffer by default). */
export function decodeToL16(mulaw: Buffer, out = Buffer.allocUnsafe(mulaw.length * 2)): Buffer {
  for (let i = 0, at = 0; i < mulaw.length; i++, at += 2) {
    const sample = DECODED[mulaw[i] ?? 0xff] ?? 0;
    out[at] = sample & 0xff;
    out[at + 1] = sample >> 8;
  }
  return out;
}

/** Whether the μ-law samples of `mulaw` from `from` to `to` are all quiet. */
export function isQuiet(mulaw: Buffer, from = 0, to = mulaw.length): boolean {
  for (let i = from; i < to; i++) if (QUIET[mulaw[i] ?? 0xff] !== 1) return false;
  return true;
}
