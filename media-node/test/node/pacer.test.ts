// The node's one 20 ms clock on real timers: a tick that comes late (here a handler that holds
// the event loop, as a busy loop or a host pause does) skips the ticks it passed; nothing is
// called twice to catch up.
import { describe, expect, it, vi } from 'vitest';
import { Pacer, TICK_MS } from '../../src/media-stream/pacer.js';

const STALL_MS = 75;

describe('pacer', () => {
  it('a late tick skips the ticks it passed: each subscriber runs once a tick, in order', async () => {
    const pacer = new Pacer((err) => {
      throw err;
    });
    const ticks: number[] = [];
    const unsubscribe = pacer.subscribe((tick) => {
      ticks.push(tick);
      if (ticks.length !== 3) return;
      const until = performance.now() + STALL_MS;
      while (performance.now() < until);
    });
    await vi.waitFor(() => expect(ticks.length).toBeGreaterThanOrEqual(6), { timeout: 3000 });
    unsubscribe();
    expect(pacer.subscribers).toBe(0);
    for (let i = 1; i < ticks.length; i++) expect(ticks[i]).toBeGreaterThan(ticks[i - 1] ?? 0);
    // The stall passed at least three tick boundaries: the next tick is numbered after them.
    expect((ticks[3] ?? 0) - (ticks[2] ?? 0)).toBeGreaterThanOrEqual(
      Math.floor(STALL_MS / TICK_MS),
    );
    // A tick's number is the time it stands for: never ahead of the clock.
    expect(ticks.at(-1)).toBeLessThanOrEqual(pacer.now());
    pacer.close();
  });
});
