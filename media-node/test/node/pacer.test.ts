// The node's one 20 ms clock on real timers: a tick that comes late (here a handler that holds
// the event loop, as a busy loop or a host pause does) skips the ticks it passed; nothing is
// called twice to catch up.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Pacer } from '../../src/media-stream/pacer.js';
import { TICK_MS } from '../../src/media-stream/slot-phase.js';

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

describe('pacer aligned on FreeSWITCH slots', () => {
  // Timers and performance.now() on a fake clock: each tick fires exactly when it is scheduled.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('fires LEAD_MS before each slot once a frame showed where slots begin, numbered by slot', () => {
    const origin = performance.now();
    const pacer = new Pacer((err) => {
      throw err;
    });
    const fired: Array<{ tick: number; at: number }> = [];
    pacer.subscribe((tick) => fired.push({ tick, at: performance.now() - origin }));
    vi.advanceTimersByTime(60);
    // Unaligned, every 20 ms from the pacer's creation.
    expect(fired.map((f) => f.at)).toEqual([20, 40, 60]);
    expect(pacer.aligned).toBe(false);
    const lastUnaligned = fired.at(-1)?.tick ?? NaN;

    // A frame at 67 ms: slots begin at 7 (mod 20), so ticks fire at 17 (mod 20).
    vi.advanceTimersByTime(7);
    pacer.observeFrame();
    expect(pacer.aligned).toBe(true);
    fired.length = 0;
    vi.advanceTimersByTime(59);
    expect(fired.map((f) => f.at)).toEqual([77, 97, 117]);
    // Each tick is numbered by the slot it is sent for; the numbers run on from before.
    const ticks = fired.map((f) => f.tick);
    expect(ticks).toEqual([lastUnaligned + 1, lastUnaligned + 2, lastUnaligned + 3]);
    expect(pacer.now()).toBe(ticks[2]); // 126 ms: the slot at 127 has not begun
    vi.advanceTimersByTime(1);
    expect(pacer.now()).toBe((ticks[2] ?? 0) + 1);
    pacer.close();
  });

  it('aligned, a playout that wakes within LEAD_MS of a slot sends at once, not a slot later', () => {
    const origin = performance.now();
    const pacer = new Pacer((err) => {
      throw err;
    });
    vi.advanceTimersByTime(10);
    pacer.observeFrame(); // slots begin at 10 (mod 20)
    vi.advanceTimersByTime(12); // 22 ms: 8 ms before the slot at 30
    const fired: number[] = [];
    pacer.subscribe(() => fired.push(performance.now() - origin));
    vi.advanceTimersByTime(0);
    expect(fired).toEqual([22]);
    vi.advanceTimersByTime(20);
    expect(fired).toEqual([22, 40]);
    pacer.close();
  });
});
