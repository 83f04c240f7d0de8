// The playout model behind the late-tick decision (docs/decisions/media-streams.md): the node's
// Playout against the simulator's write buffer of mod_audio_stream, in virtual time. What the
// decision rests on holds: with the node's loop stalling, the playout keeps the latency it has
// without stalls and never makes the module wait more than timing jitter does; one chunk a tick
// lets the latency grow for good; catching up keeps the module's socket thread asleep.
import { describe, expect, it } from 'vitest';
import { modelPlayout, type ModelScenario } from '../media-streams/playout-model.js';

const stalls: ModelScenario = {
  seconds: 20,
  stalled: 'node',
  stallMs: 70,
  stallEveryMs: 2000,
  jitterMs: 2,
  loud: 5,
  of: 50,
  runs: 5,
};
const calm: ModelScenario = { ...stalls, stallMs: 0 };

describe('playout model', () => {
  it("the node's playout: stalls cost no latency and no waits of the module, only the stalls' audio", () => {
    const without = modelPlayout('playout', calm);
    const withStalls = modelPlayout('playout', stalls);
    expect(withStalls.latencyP99).toBeLessThan(without.latencyP99 + 5);
    expect(withStalls.waitsPerMin).toBeLessThanOrEqual(without.waitsPerMin + 5);
    // About the stalls' own time: 70 ms every 2 s is 3.5 chunks, and the late tick's.
    expect(withStalls.droppedPerMin).toBeGreaterThan(90);
    expect(withStalls.droppedPerMin).toBeLessThan(150);
  });

  it("the app's own stalls: what its bursts leave standing is dropped within a second", () => {
    const appStalls = { ...stalls, stalled: 'app' as const };
    const played = modelPlayout('playout', appStalls);
    expect(played.latencyP50).toBeLessThan(modelPlayout('playout', calm).latencyP50 + 5);
    // One chunk a tick keeps a stall's worth standing for good.
    expect(modelPlayout('one-a-tick', appStalls).latencyP50).toBeGreaterThan(
      played.latencyP50 + 40,
    );
  });

  it('one chunk a tick: every stall adds its time to the latency for good', () => {
    expect(modelPlayout('one-a-tick', calm).latencyP50).toBeLessThan(40);
    expect(modelPlayout('one-a-tick', stalls).latencyP99).toBeGreaterThan(400);
  });

  it("catching up bounds the latency only by keeping the module's socket thread waiting", () => {
    const caughtUp = modelPlayout('catch-up', stalls);
    const played = modelPlayout('playout', stalls);
    expect(caughtUp.waitsPerMin).toBeGreaterThan(10 * played.waitsPerMin);
    expect(caughtUp.waitMsPerMin).toBeGreaterThan(30_000);
    expect(caughtUp.latencyP50).toBeGreaterThan(played.latencyP50 + 50);
  });
});
