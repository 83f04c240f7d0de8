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

/**
 * Every 20 ms timer on the clock's frame slots, as FreeSWITCH's soft timers share one tick per
 * interval (its timer matrix): a module's write thread, and the read ticks that send a call's
 * frames, all wake at the same instant, just after a slot begins. One Node timer serves them all.
 */
const slotHandlers = new Set<() => void>();
let slotTimer: NodeJS.Timeout | undefined;

/** Calls `handler` at the start of every frame slot from the next one; returns its stop. */
export function onEverySlot(handler: () => void): () => void {
  slotHandlers.add(handler);
  scheduleSlot();
  return () => {
    slotHandlers.delete(handler);
    if (slotHandlers.size > 0) return;
    clearTimeout(slotTimer);
    slotTimer = undefined;
  };
}

function scheduleSlot(): void {
  if (slotTimer !== undefined || slotHandlers.size === 0) return;
  const next = slotOf(nowSample()) + FRAME_SAMPLES;
  // Rounded up: a timer that fired a fraction early would find the previous slot still current.
  const delay = Math.ceil((next * 1000) / CALL_RATE - performance.now());
  slotTimer = setTimeout(fireSlot, Math.max(0, delay));
}

function fireSlot(): void {
  slotTimer = undefined;
  // A snapshot: a stream that stops (or starts) in its tick changes the set, not this tick.
  for (const handler of [...slotHandlers]) handler();
  scheduleSlot();
}
