// The media-streams scenario's arithmetic on made-up arrivals: which frames count as late, and
// how a tone said by the caller is matched at the app and in what the call heard.
import { describe, expect, it } from 'vitest';
import { lateFrames, toneSample, type Say } from '../media-streams/measure.js';

/** Arrivals on a 20 ms schedule from `start`, plus each frame's delay. */
const schedule = (delays: readonly number[], start = 1000) =>
  delays.map((delay, i) => start + (i + 1) * 20 + delay);
const numbers = (n: number, from = 1) => Array.from({ length: n }, (_, i) => from + i);

describe('late frames', () => {
  it('none on schedule, whatever the offset and up to 40 ms of jitter', () => {
    const delays = numbers(50).map((i) => (i * 7) % 41);
    expect(lateFrames(numbers(50), schedule(delays, 12_345.6), 40)).toBe(0);
  });

  it('a frame more than 40 ms behind the best-placed one is late; 40 ms exactly is not', () => {
    const delays = [0, 0, 0, 0, 41, 40, 0, 0];
    expect(lateFrames(numbers(8), schedule(delays), 40)).toBe(1);
  });

  it('the schedule is anchored on the best-placed frame, not the first', () => {
    const delays = [60, 0, 0, 0, 0];
    expect(lateFrames(numbers(5, 101), schedule(delays), 40)).toBe(1);
  });

  it('a stall: the frames held back come in a burst, those more than 40 ms behind count', () => {
    // Frames 5 to 9 arrive together with frame 10: 100, 80, 60, 40 and 20 ms behind.
    const arrivals = schedule(numbers(12).map((i) => (i >= 5 && i <= 9 ? (10 - i) * 20 : 0)));
    expect(lateFrames(numbers(12), arrivals, 40)).toBe(3);
  });

  it('no frames, none late', () => {
    expect(lateFrames([], [], 40)).toBe(0);
  });
});

describe('tone matching', () => {
  // The say's round trip is 1000 → 1004 on the generator's clock, and the simulator started the
  // tone at 5005 ms of the call: the call's time 0 is 1002 − 5005 on the generator's clock.
  const say: Say = { sentAt: 1000, answeredAt: 1004, atMs: 5005 };
  const zero = 1002 - 5005;
  /** What the call heard: quiet, loud for 100 ms from `fromMs` (the call's time) on. */
  const heard = (...fromMs: number[]): Int16Array => {
    const pcm = new Int16Array(8 * 8000);
    for (const ms of fromMs) pcm.fill(8000, ms * 8, (ms + 100) * 8);
    return pcm;
  };
  const onset = { arrivedAt: 1030, echoedAt: 1031 };

  it('caller → app from the end of its frame slot; app → caller to the slot it is heard in', () => {
    // Its slot is 5000-5020 ms, sent at zero + 5020 = 1017; the echo is heard 5 ms into the
    // slot from 5060 ms (the tone began 5 ms into its frame), which starts at zero + 5060.
    expect(toneSample(say, [onset], heard(5065))).toEqual({
      toApp: 1030 - (zero + 5020),
      toCaller: zero + 5060 - 1031,
    });
    expect(toneSample(say, [onset], heard(5065))).toEqual({ toApp: 13, toCaller: 26 });
  });

  it("the app's onset is the first after the say was sent: an earlier one is the last tone's", () => {
    const earlier = { arrivedAt: 990, echoedAt: 991 };
    const later = { arrivedAt: 2030, echoedAt: 2031 };
    expect(toneSample(say, [earlier, onset, later], heard(5065))).toEqual({
      toApp: 13,
      toCaller: 26,
    });
  });

  it('the echo heard is the first loud sample after 20 ms of quiet, from 40 ms before its send on', () => {
    // The previous tone's echo, heard well before this one was sent, is not it.
    expect(toneSample(say, [onset], heard(4065, 5065))?.toCaller).toBe(26);
    // Loud from before the search starts until the echo: no onset after quiet there.
    const unbroken = heard(5065);
    unbroken.fill(8000, 4900 * 8, 5065 * 8);
    expect(toneSample(say, [onset], unbroken)).toBeUndefined();
  });

  it('not found: no onset at the app after the say, or nothing heard', () => {
    expect(toneSample(say, [{ arrivedAt: 999, echoedAt: 999 }], heard(5065))).toBeUndefined();
    expect(toneSample(say, [onset], heard())).toBeUndefined();
  });
});
