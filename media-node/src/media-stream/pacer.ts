import type { TickSource } from './playout.js';
import { LEAD_MS, SlotPhase, TICK_MS } from './slot-phase.js';

/** Called once a tick with the tick's number. */
export type TickHandler = (tick: number) => void;

/**
 * The node's one 20 ms clock, serving the playout of every bidirectional media stream: one timer
 * however many streams play, running only while some playout is subscribed. Ticks are
 * numbered, so a number is a time every stream shares.
 *
 * Once FreeSWITCH's frames have shown where its 20 ms slots begin (observeFrame, SlotPhase), each
 * tick fires LEAD_MS before a slot, so that the chunk it sends is the one the module's write
 * thread takes at that slot: the application's audio then waits for the next slot, not for a
 * pacer whose phase fell anywhere in it (on average 10 ms more, and a different figure for every
 * process start). Tick k stands for the slot it is sent for: its number turns k + 1 when that
 * slot begins. Until a frame has been seen, ticks fire every 20 ms from the pacer's creation.
 *
 * A tick that comes late (a busy event loop, a host pause) is numbered by the slot under way, so
 * the slots it missed are skipped: each stream sends one chunk a tick at most, since the module
 * buffers one and would make its socket thread wait on a burst; a playout drops what it fell
 * behind (playout.ts).
 */
export class Pacer implements TickSource {
  private readonly handlers = new Set<TickHandler>();
  private readonly origin = performance.now();
  private readonly slots = new SlotPhase();
  /** Where slots begin after a multiple of TICK_MS from the origin (0 until aligned). */
  private phase = 0;
  /** How long before its slot a tick fires: TICK_MS until aligned, i.e. at the previous slot. */
  private lead = TICK_MS;
  /** Added to a slot's number to make its tick's: numbers run on when the slots move. */
  private shift = 0;
  private timer: NodeJS.Timeout | undefined;
  private lastTick = -1;
  private lastFiredAt: number | undefined;

  /** `onError`: a handler threw (a bug); the others still run, and the clock goes on. */
  constructor(private readonly onError: (err: unknown) => void) {}

  /** Streams subscribed now. */
  get subscribers(): number {
    return this.handlers.size;
  }

  /** Whether the ticks are aligned on FreeSWITCH's slots. */
  get aligned(): boolean {
    return this.lead !== TICK_MS;
  }

  /** The number of the tick under way now: the slot its chunk is for has not begun. */
  now(): number {
    return this.slotAt(performance.now()) + this.shift;
  }

  /** A frame of caller audio arrived from FreeSWITCH's module (now, or at `at`). */
  observeFrame(at = performance.now()): void {
    if (!this.slots.observe(at - this.origin)) return;
    this.phase = this.slots.offset ?? 0;
    this.lead = LEAD_MS;
    // The last tick's chunk went to the first slot after it: the next tick is for the slot after
    // that one and takes the next number, neither skipping a slot nor sending two into one.
    if (this.lastFiredAt !== undefined) this.shift = this.lastTick - this.slotAt(this.lastFiredAt);
    if (this.timer === undefined) return;
    this.halt();
    this.schedule();
  }

  /** The number of the first slot that begins after `at` (before shift). */
  private slotAt(at: number): number {
    return Math.floor((at - this.origin - this.phase) / TICK_MS) + 1;
  }

  /** Calls `handler` every tick from the next one; returns its unsubscribe. */
  subscribe(handler: TickHandler): () => void {
    this.handlers.add(handler);
    this.schedule();
    return () => {
      this.handlers.delete(handler);
      if (this.handlers.size === 0) this.halt();
    };
  }

  /** Stops the clock; every subscription is dropped. */
  close(): void {
    this.handlers.clear();
    this.halt();
  }

  private schedule(): void {
    if (this.timer !== undefined || this.handlers.size === 0) return;
    // Aligned, the tick under way may still fire: its chunk reaches the module before its slot.
    // Unaligned, the slots are unknown, so no tick fires before its time: two chunks close
    // together could fall in one slot of the module's.
    const now = this.now();
    const next = Math.max(this.aligned ? now : now + 1, this.lastTick + 1);
    const at = this.origin + this.phase + (next - this.shift) * TICK_MS - this.lead;
    this.timer = setTimeout(this.fire, Math.max(0, at - performance.now()));
  }

  private halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
    this.lastFiredAt = performance.now();
    const tick = Math.max(this.now(), this.lastTick + 1);
    this.lastTick = tick;
    // A snapshot: a handler that unsubscribes (its queue ran dry) or another that subscribes
    // meanwhile changes the set, not this tick.
    for (const handler of [...this.handlers]) {
      try {
        handler(tick);
      } catch (err) {
        this.onError(err);
      }
    }
    this.schedule();
  };
}
