// 16-bit PCM helpers: L16 little-endian on the wire, saturating mixes, channel folding and a
// linear resampler (simple on purpose: the sandbox needs timing and tones, not hi-fi audio).

export function clamp16(v: number): number {
  return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

/** Adds `src` into `dst` from `at`, clipping as FreeSWITCH's mixers do. */
export function mixInto(dst: Int16Array, src: Int16Array, at = 0): void {
  const end = Math.min(dst.length, at + src.length);
  for (let i = Math.max(0, at); i < end; i++) dst[i] = clamp16(dst[i]! + src[i - at]!);
}

export function mix(a: Int16Array, b: Int16Array): Int16Array {
  const out = Int16Array.from(a);
  mixInto(out, b);
  return out;
}

/** A sine tone (amplitude 8000, as the test WAVs), starting at phase 0. */
export function tone(hz: number, samples: number, rate: number): Int16Array {
  const out = new Int16Array(samples);
  for (let i = 0; i < samples; i++)
    out[i] = Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * 8000);
  return out;
}

/** Little-endian L16 bytes (an odd trailing byte is dropped). */
export function fromL16(buf: Buffer): Int16Array {
  const out = new Int16Array(buf.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = buf.readInt16LE(i * 2);
  return out;
}

export function toL16(samples: Int16Array): Buffer {
  const buf = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i]!, i * 2);
  return buf;
}

/** Interleaves two equally long channels: left, right, left, right… */
export function interleave(left: Int16Array, right: Int16Array): Int16Array {
  const out = new Int16Array(left.length * 2);
  for (let i = 0; i < left.length; i++) {
    out[i * 2] = left[i]!;
    out[i * 2 + 1] = right[i] ?? 0;
  }
  return out;
}

/**
 * Folds interleaved channels into one. `sum` adds them with clipping, as FreeSWITCH's
 * switch_mux_channels does to a stereo frame written to a mono call; `average` keeps the level.
 */
export function foldChannels(
  interleaved: Int16Array,
  channels: number,
  how: 'sum' | 'average',
): Int16Array {
  if (channels === 1) return interleaved;
  const out = new Int16Array(Math.floor(interleaved.length / channels));
  for (let i = 0; i < out.length; i++) {
    let z = 0;
    for (let c = 0; c < channels; c++) z += interleaved[i * channels + c]!;
    out[i] = clamp16(how === 'sum' ? z : Math.round(z / channels));
  }
  return out;
}

/** Linear interpolation from `from` Hz to `to` Hz (no anti-alias filter). */
export function resample(src: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return src;
  const out = new Int16Array(Math.floor((src.length * to) / from));
  const step = from / to;
  for (let i = 0; i < out.length; i++) {
    const pos = i * step;
    const j = Math.floor(pos);
    const a = src[j] ?? 0;
    const b = src[j + 1] ?? a;
    out[i] = Math.round(a + (b - a) * (pos - j));
  }
  return out;
}
