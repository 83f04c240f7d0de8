import type { TickSource } from './playout.js';

/** The length of one frame of call audio, and so of one tick. */
export const TICK_MS = 20;

/** Called once a tick with the tick's number. */
export type TickHandler = (tick: number) => void;

/**
 * The node's one 20 ms clock, serving the playout of every bidirectional media stream: one timer
 * however many streams play, running only while some playout is subscribed. Ticks are
 * numbered from the pacer's creation, so a number is a time every stream shares. A tick that
 * comes late (a busy event loop, a host pause) is not made up: the ticks it passed are skipped,
 * so each stream sends one chunk a tick at most, since FreeSWITCH's module buffers one and would
 * make its socket thread wait on a burst; a playout drops what it fell behind (playout.ts).
 */
export class Pacer implements TickSource {
  private readonly handlers = new Set<TickHandler>();
  private readonly origin = performance.now();
  private timer: NodeJS.Timeout | undefined;
  private lastTick = -1;

  /** `onError`: a handler threw (a bug); the others still run, and the clock goes on. */
  constructor(private readonly onError: (err: unknown) => void) {}

  /** Streams subscribed now. */
  get subscribers(): number {
    return this.handlers.size;
  }

  /** The number of the tick under way now. */
  now(): number {
    return Math.floor((performance.now() - this.origin) / TICK_MS);
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
    const next = Math.max(this.now(), this.lastTick) + 1;
    const delay = Math.max(0, this.origin + next * TICK_MS - performance.now());
    this.timer = setTimeout(this.fire, delay);
  }

  private halt(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private readonly fire = (): void => {
    this.timer = undefined;
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
