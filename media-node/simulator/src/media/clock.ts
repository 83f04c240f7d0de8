// The simulator's one audio clock: 8 kHz samples since the process started, shared by every
// call, so what one call says and what another hears line up sample for sample, and 20 ms frame
// slots (multiples of FRAME_SAMPLES) are the same for every writer and reader.

/** Every call's audio is 8 kHz mono L16, as FreeSWITCH's PCMU channels decode to. */
export const CALL_RATE = 8000;
export const FRAME_MS = 20;
export const FRAME_SAMPLES = (CALL_RATE * FRAME_MS) / 1000;

/** The current sample on the clock (monotonic). */
export function nowSample(): number {
  return Math.floor((performance.now() * CALL_RATE) / 1000);
}

export function samplesToMs(samples: number): number {
  return Math.round((samples * 1000) / CALL_RATE);
}

export function msToSamples(ms: number): number {
  return Math.round((ms * CALL_RATE) / 1000);
}

/** The first sample of the frame slot that contains `sample`. */
export function slotOf(sample: number): number {
  return Math.floor(sample / FRAME_SAMPLES) * FRAME_SAMPLES;
}
