// The playout of a bidirectional stream on a hand-cranked clock: one chunk a tick however the
// audio is cut, and after ticks the pacer missed (a busy event loop, a host pause) never a
// burst: what the missed ticks left queued is dropped instead, quiet chunks first.
import { describe, expect, it } from 'vitest';
import { encodeL16, encodeSample } from '../../src/media-stream/g711.js';
import {
  IDLE_TICKS,
  MAX_BEHIND_CHUNKS,
  MAX_STANDING_CHUNKS,
  Playout,
  SAMPLES_PER_CHUNK,
  SETTLE_TICKS,
  STANDING_TICKS,
  type TickSource,
} from '../../src/media-stream/playout.js';

/** The pacer's ticks, one at a time, as a test says; `missed` ticks are skipped, as late ones. */
class Ticks implements TickSource {
  private tick = 0;
  private readonly handlers = new Set<(tick: number) => void>();

  now(): number {
    return this.tick;
  }

  subscribe(handler: (tick: number) => void): () => void {
    this.handlers.add(handler);
    return () => this.handlers.delete(handler);
  }

  get subscribed(): number {
    return this.handlers.size;
  }

  next(missed = 0): void {
    this.tick += 1 + missed;
    for (const handler of [...this.handlers]) handler(this.tick);
  }
}

/** A chunk of μ-law: quiet (silence) or loud (a full-scale square wave), tagged by its level. */
const quiet = (): Buffer => Buffer.alloc(SAMPLES_PER_CHUNK, 0xff);
const loud = (level = 20_000): Buffer => {
  const codes = [encodeSample(level), encodeSample(-level)];
  return Buffer.from(Array.from({ length: SAMPLES_PER_CHUNK }, (_, i) => codes[i % 2] ?? 0));
};

function playout() {
  const ticks = new Ticks();
  const played: Array<{ tick: number; mulaw: Buffer }> = [];
  const marks: Array<{ tick: number; name: string }> = [];
  let dropped = 0;
  const p = new Playout(ticks, {
    // The buffer is the playout's own, reused: keep a copy.
    play: (l16) => played.push({ tick: ticks.now(), mulaw: encodeL16(Buffer.from(l16)) }),
    marked: (name) => marks.push({ tick: ticks.now(), name }),
    dropped: (chunks) => (dropped += chunks),
  });
  return { p, ticks, played, marks, dropped: () => dropped };
}

/** At most one chunk went out at each tick. */
function oneATick(played: ReadonlyArray<{ tick: number }>): boolean {
  return played.every((p, i) => i === 0 || p.tick > (played[i - 1]?.tick ?? -1));
}

describe('playout', () => {
  it('plays one chunk a tick, whole and in order however the audio is cut; sleeps once idle a while', () => {
    const { p, ticks, played } = playout();
    const audio = Buffer.concat([loud(1000), loud(2000), loud(3000)]);
    for (const [from, to] of [
      [0, 70],
      [70, 200],
      [200, 210],
      [210, 480],
    ]) {
      p.push(audio.subarray(from, to));
    }
    // Sent at ticks 1 to 3, idle from the fourth on.
    for (let i = 0; i < IDLE_TICKS + 2; i++) ticks.next();
    expect(played.map((x) => x.tick)).toEqual([1, 2, 3]);
    expect(Buffer.concat(played.map((x) => x.mulaw))).toEqual(audio);
    expect(ticks.subscribed).toBe(1);
    ticks.next();
    expect(ticks.subscribed).toBe(0);
  });

  it('a late tick sends nothing; the quiet chunks the stall left queued are dropped after it, one chunk going out a tick', () => {
    const { p, ticks, played, dropped } = playout();
    // An echo at real-time pace: one chunk arrives before each tick.
    p.push(loud());
    ticks.next();
    p.push(quiet());
    // The loop stalls: three ticks are missed and the fourth comes late, before the chunks sent
    // meanwhile have been read; they come after it, with the one of the next tick.
    ticks.next(3);
    expect(played).toHaveLength(1);
    for (let i = 0; i < 3; i++) p.push(quiet());
    p.push(loud(5000));
    ticks.next();
    // Back on time: the chunk of this tick goes out now, the quiet ones of the stall are gone.
    expect(dropped()).toBe(4);
    expect(played.map((x) => x.mulaw)).toEqual([loud(), loud(5000)]);
    expect(p.queuedSamples).toBe(0);
    expect(oneATick(played)).toBe(true);
  });

  it('keeps loud audio while at most MAX_BEHIND_CHUNKS behind, and drops the first quiet chunk to reach the head', () => {
    const { p, ticks, played, dropped } = playout();
    p.push(loud(1000));
    ticks.next();
    p.push(loud(2000));
    ticks.next(3);
    for (const level of [3000, 4000, 5000]) p.push(loud(level));
    // Then one chunk a tick, the second of them quiet.
    for (const next of [loud(6000), quiet(), loud(8000), loud(9000), loud(10_000), loud(11_000)]) {
      p.push(next);
      ticks.next();
    }
    expect(played.map((x) => x.mulaw)).toEqual(
      [1000, 2000, 3000, 4000, 5000, 6000, 8000].map((level) => loud(level)),
    );
    // Owed four: the quiet chunk paid one.
    expect(dropped()).toBe(1);
    expect(p.queuedSamples).toBe(3 * SAMPLES_PER_CHUNK);
    expect(oneATick(played)).toBe(true);
  });

  it('beyond MAX_BEHIND_CHUNKS behind, drops the oldest audio at once, loud or not', () => {
    const { p, ticks, played, dropped } = playout();
    const missed = MAX_BEHIND_CHUNKS + 3;
    p.push(loud(500));
    ticks.next();
    ticks.next(missed);
    for (let i = 1; i <= missed + 2; i++) p.push(loud(1000 * i));
    ticks.next();
    // Owed the missed ticks and the late one: the oldest four go, the bound's worth stays queued.
    expect(dropped()).toBe(4);
    expect(played.map((x) => x.mulaw)).toEqual([loud(500), loud(5000)]);
    expect(p.queuedSamples).toBe(MAX_BEHIND_CHUNKS * SAMPLES_PER_CHUNK);
  });

  it('never drops the loud audio of an app that sent more than MAX_STANDING_CHUNKS ahead, however long the node stalled', () => {
    const { p, ticks, played, dropped } = playout();
    const ahead = MAX_STANDING_CHUNKS + 10;
    for (let i = 1; i <= ahead; i++) p.push(loud(1000 + i));
    ticks.next();
    ticks.next(MAX_BEHIND_CHUNKS + 5);
    ticks.next();
    expect(dropped()).toBe(0);
    expect(played.map((x) => x.mulaw)).toEqual([loud(1001), loud(1002)]);
    expect(p.queuedSamples).toBe((ahead - 2) * SAMPLES_PER_CHUNK);
  });

  it('audio read a few ticks after a stall is still late; after SETTLE_TICKS the debt is no more than what is queued beyond a chunk', () => {
    const late = playout();
    late.p.push(loud());
    late.ticks.next();
    late.ticks.next(4);
    // The audio sent during the stall is read a few ticks after the late one (a busy machine).
    for (let i = 0; i < SETTLE_TICKS - 1; i++) late.ticks.next();
    for (let i = 0; i < 6; i++) late.p.push(quiet());
    late.ticks.next();
    // Owed: the four missed ticks and the late one, which sent nothing.
    expect(late.dropped()).toBe(5);
    expect(late.played).toHaveLength(2);

    const idle = playout();
    idle.p.push(loud());
    idle.ticks.next();
    idle.ticks.next(4);
    // Nothing queued for SETTLE_TICKS ticks: the app had sent nothing, nothing is late.
    for (let i = 0; i < SETTLE_TICKS; i++) idle.ticks.next();
    for (let i = 0; i < 4; i++) idle.p.push(quiet());
    for (let i = 0; i < 4; i++) idle.ticks.next();
    expect(idle.dropped()).toBe(0);
    expect(idle.played).toHaveLength(5);
  });

  it('audio standing queued a whole second beyond the chunk a tick needs is dropped, quiet first', () => {
    const { p, ticks, played, dropped } = playout();
    // An app at real-time pace, three chunks ahead after a burst of its own.
    for (let i = 0; i < 3; i++) p.push(quiet());
    for (let i = 0; i < STANDING_TICKS - 1; i++) {
      p.push(quiet());
      ticks.next();
    }
    expect(dropped()).toBe(0);
    p.push(loud());
    ticks.next();
    // The three chunks too many go; the loud one, due now, plays.
    expect(dropped()).toBe(3);
    expect(played.at(-1)?.mulaw).toEqual(loud());
    expect(p.queuedSamples).toBe(0);
  });

  it('an app sending ahead of real time (more than MAX_STANDING_CHUNKS queued) is left alone', () => {
    const { p, ticks, dropped } = playout();
    for (let i = 0; i < MAX_STANDING_CHUNKS + 2; i++) p.push(quiet());
    for (let i = 0; i < 2 * STANDING_TICKS; i++) {
      p.push(quiet());
      ticks.next();
    }
    expect(dropped()).toBe(0);
    expect(p.queuedSamples).toBe((MAX_STANDING_CHUNKS + 2) * SAMPLES_PER_CHUNK);
  });

  it('a mark behind dropped audio comes back once the audio before it has been heard', () => {
    const { p, ticks, marks, dropped } = playout();
    p.push(loud());
    ticks.next();
    p.push(quiet());
    p.push(quiet());
    p.mark('after-quiet');
    p.push(loud());
    ticks.next(2);
    expect(dropped()).toBe(2);
    // The last chunk sent went out at tick 1: heard two ticks later, which has passed.
    expect(marks).toEqual([{ tick: 4, name: 'after-quiet' }]);
  });

  it('clear drops the queue and the debt; every pending mark comes back', () => {
    const { p, ticks, marks, dropped } = playout();
    p.push(loud());
    ticks.next();
    p.push(loud());
    p.mark('m');
    ticks.next(3);
    p.clear();
    expect(marks.map((m) => m.name)).toEqual(['m']);
    p.push(quiet());
    p.push(quiet());
    ticks.next();
    expect(dropped()).toBe(0);
  });
});
