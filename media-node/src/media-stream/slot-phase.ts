/** The length of one frame of call audio, and so of one tick. */
export const TICK_MS = 20;

/**
 * How long before FreeSWITCH's slot a tick sends its chunks: room for the pacer's timer to fire
 * late, for its handlers to run through a hundred streams and for the chunk's way into the
 * module's buffer. Half a slot: the margin a pacer of unknown phase had on average, now every
 * time (with 5 ms, a 1 s tone had gaps in 2 runs of 3 on a busy machine: ticks that late).
 */
export const LEAD_MS = 10;

/** Arrivals are judged over this long, and the estimate moves once at its end. */
const WINDOW_MS = 1000;

/**
 * Where FreeSWITCH's 20 ms slots begin, on the node's clock, learnt from the frames of caller
 * audio its module sends. FreeSWITCH's soft timers of one interval share a single tick (its timer
 * matrix): the RTP reads that produce those frames and every module's write thread, which takes
 * one chunk of the application's audio from its buffer at each slot, wake together. A frame
 * arrives at the slot's start plus the way here, which is never negative, so the earliest arrival
 * in a window is the best estimate; it is taken once a window, so one late burst cannot move it
 * for long.
 */
export class SlotPhase {
  /** Milliseconds after a multiple of TICK_MS (from the clock's origin) a slot begins. */
  private phase: number | undefined;
  /** The earliest arrival of the current window, relative to `phase`, in [-TICK_MS/2, TICK_MS/2). */
  private earliest = Infinity;
  private windowEnd = 0;

  /** The estimate, undefined until a frame has been seen. */
  get offset(): number | undefined {
    return this.phase;
  }

  /** A frame arrived at `at` ms of the clock; true when the estimate moved. */
  observe(at: number): boolean {
    const phase = mod(at, TICK_MS);
    if (this.phase === undefined) {
      this.phase = phase;
      this.windowEnd = at + WINDOW_MS;
      return true;
    }
    const from = mod(phase - this.phase + TICK_MS / 2, TICK_MS) - TICK_MS / 2;
    if (from < this.earliest) this.earliest = from;
    if (at < this.windowEnd) return false;
    const moved = this.earliest !== 0;
    this.phase = mod(this.phase + this.earliest, TICK_MS);
    this.earliest = Infinity;
    this.windowEnd = at + WINDOW_MS;
    return moved;
  }
}

/** `value` modulo `m`, in [0, m). */
function mod(value: number, m: number): number {
  return ((value % m) + m) % m;
}
