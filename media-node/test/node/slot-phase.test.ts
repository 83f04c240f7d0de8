// Where FreeSWITCH's 20 ms slots begin, learnt from when its frames arrive: the earliest arrival
// of each one-second window, on a circle of 20 ms.
import { describe, expect, it } from 'vitest';
import { SlotPhase } from '../../src/media-stream/slot-phase.js';

/** Arrivals of one frame a slot from `start` ms, each `delays[i % n]` ms after its slot. */
function feed(phase: SlotPhase, start: number, slots: number, delays: readonly number[]): void {
  for (let i = 0; i < slots; i++) phase.observe(start + i * 20 + (delays[i % delays.length] ?? 0));
}

describe('SlotPhase', () => {
  it('knows nothing until a frame arrives, then takes the first arrival', () => {
    const phase = new SlotPhase();
    expect(phase.offset).toBeUndefined();
    expect(phase.observe(1007)).toBe(true);
    expect(phase.offset).toBe(7);
  });

  it('moves, once a window, to the earliest arrival: the way here is never negative', () => {
    const phase = new SlotPhase();
    phase.observe(1009); // a first frame that came 3 ms late
    feed(phase, 1026, 60, [3, 0.5, 2, 1]); // slots begin at 6 (mod 20), frames 0.5-3 ms after
    expect(phase.offset).toBeCloseTo(6.5, 6);
  });

  it('a window of late frames moves it later, and the next window of timely ones back', () => {
    const phase = new SlotPhase();
    // Slots begin at 4 (mod 20). A window closes with the first frame a second after it opened.
    const slot = (i: number, delay: number) => phase.observe(i * 20 + 4 + delay);
    slot(0, 0.2);
    for (let i = 1; i <= 50; i++) slot(i, 0.2);
    expect(phase.offset).toBeCloseTo(4.2, 6);
    // A window in which every frame came 6 ms late (a busy node) moves it there...
    for (let i = 51; i <= 100; i++) slot(i, 6.2);
    expect(phase.offset).toBeCloseTo(10.2, 6);
    // ...and a window with one timely frame among late ones brings it back.
    for (let i = 101; i <= 151; i++) slot(i, i === 120 ? 0.2 : 6.2);
    expect(phase.offset).toBeCloseTo(4.2, 6);
  });

  it('wraps around the slot: arrivals either side of a multiple of 20 are 1 ms apart, not 19', () => {
    const phase = new SlotPhase();
    phase.observe(3019.5);
    feed(phase, 3040, 60, [0.5, -0.5]); // slots at 0 (mod 20): frames at 19.5 and 0.5
    expect(phase.offset).toBeCloseTo(19.5, 6);
  });
});
