// Reading a tone out of call audio (8 kHz samples, as the simulator's heard.wav holds them).

/** The level of `hz` in `samples` (Goertzel): about the tone's amplitude for a pure tone. */
export function toneLevel(samples: Int16Array, hz: number): number {
  const k = 2 * Math.cos((2 * Math.PI * hz) / 8000);
  let s1 = 0;
  let s2 = 0;
  for (const x of samples) {
    const s = x + k * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return (2 * Math.sqrt(Math.max(0, power))) / Math.max(1, samples.length);
}

/** The highest level of `hz` over any 200 ms of `samples` (from sample `from`). */
export function loudest(samples: Int16Array, hz: number, from = 0): number {
  let best = 0;
  for (let at = from; at + 1600 <= samples.length; at += 400) {
    best = Math.max(best, toneLevel(samples.subarray(at, at + 1600), hz));
  }
  return best;
}
