import { decodeSample, Playout } from '@voicegw/media-node';
import { StreamWriter } from '@voicegw/simulator';

// How the node's playout fares when its ticks come late, in virtual time, against the
// simulator's model of mod_audio_stream's write side (StreamWriter: one 20 ms chunk of room at
// 8k; a message that does not fit makes the module's socket thread wait). An echo app sends one
// chunk every 20 ms; the node's event loop stalls now and then, or the app does. Nothing here depends on the
// machine it runs on: docs/decisions/media-streams.md quotes its figures.

/** How the node sends an echo's audio to the module. */
export type PlayoutPolicy =
  /** One chunk a tick, a missed tick never made up (the node before the late-tick fix). */
  | 'one-a-tick'
  /** One missed chunk made up a tick while fewer chunks were sent than ticks have passed. */
  | 'catch-up'
  /** The node's Playout: a late tick sends nothing, what the lost time left queued is dropped. */
  | 'playout';

export const POLICIES: readonly PlayoutPolicy[] = ['one-a-tick', 'catch-up', 'playout'];

export interface ModelScenario {
  readonly seconds: number;
  /**
   * Whose stalls: the node's event loop (its ticks late, the echo read late), or the app's (or
   * the caller's audio: the echo comes in a burst after it, the node's ticks on time).
   */
  readonly stalled: 'node' | 'app';
  /** It stalls this long (0: never)... */
  readonly stallMs: number;
  /** ...this often, from 0.5 s on. */
  readonly stallEveryMs: number;
  /** Each tick fires late, and each echo chunk arrives, by up to this much. */
  readonly jitterMs: number;
  /** `loud` chunks of every `of` are loud (a tone, speech), the rest quiet. */
  readonly loud: number;
  readonly of: number;
  /** Runs, each with its own phases of the node's ticks, the module's slots and the echo. */
  readonly runs: number;
}

export interface ModelFigures {
  /** The app's loud chunk reaching the node → the module writing it into the call (ms). */
  readonly latencyP50: number;
  readonly latencyP99: number;
  /** Messages the module took while full, each a sleep of its socket thread. */
  readonly waitsPerMin: number;
  /** How long its socket thread slept (the caller's audio stalls with it). */
  readonly waitMsPerMin: number;
  readonly droppedPerMin: number;
}

const SAMPLES_PER_MS = 8;
/** μ-law codes of loud samples, one per chunk in turn, so a chunk is known by what is written. */
const LOUD = Array.from({ length: 256 }, (_, c) => c).filter(
  (c) => Math.abs(decodeSample(c)) > 1000,
);
const QUIET = 0xff;
const INDEX_OF_SAMPLE = new Map(LOUD.map((code, i) => [decodeSample(code), i]));

export function modelPlayout(policy: PlayoutPolicy, scenario: ModelScenario): ModelFigures {
  const runs = Array.from({ length: scenario.runs }, (_, run) => oneRun(policy, scenario, run));
  const mean = (f: (r: RunFigures) => number): number =>
    runs.reduce((sum, r) => sum + f(r), 0) / runs.length;
  const perMin = 60 / scenario.seconds;
  return {
    latencyP50: mean((r) => r.p50),
    latencyP99: mean((r) => r.p99),
    waitsPerMin: mean((r) => r.waits) * perMin,
    waitMsPerMin: mean((r) => r.waitMs) * perMin,
    droppedPerMin: mean((r) => r.dropped) * perMin,
  };
}

interface RunFigures {
  readonly p50: number;
  readonly p99: number;
  readonly waits: number;
  readonly waitMs: number;
  readonly dropped: number;
}

function oneRun(policy: PlayoutPolicy, s: ModelScenario, run: number): RunFigures {
  const random = seeded(run + 1);
  const start = 1000;
  const tickOrigin = start + random() * 20;
  const echoPhase = random() * 20;
  const isLoud = (k: number): boolean => k % s.of < s.loud;
  const codeOf = (k: number): number => (isLoud(k) ? (LOUD[k % LOUD.length] ?? QUIET) : QUIET);

  // The module: chunks written at their slots, known by their code; its socket thread's sleeps.
  const arrived: number[] = [];
  const latencies: number[] = [];
  let pushed = -1;
  let waitingSince: number | undefined;
  let waitMs = 0;
  const module = new StreamWriter(
    160,
    (at, frame) => {
      const index = INDEX_OF_SAMPLE.get(frame[0] ?? 0);
      if (index === undefined) return;
      // The latest chunk pushed with this code: loud codes recur only every LOUD.length chunks.
      const k = pushed - ((((pushed - index) % LOUD.length) + LOUD.length) % LOUD.length);
      if (arrived[k] !== undefined) latencies.push(at / SAMPLES_PER_MS - (arrived[k] ?? 0));
    },
    start * SAMPLES_PER_MS,
  );
  const watchWait = (now: number): void => {
    if (module.isWaiting) waitingSince ??= now;
    else if (waitingSince !== undefined) {
      waitMs += now - waitingSince;
      waitingSince = undefined;
    }
  };
  let sentAt = 0;
  const send = (l16: Int16Array): void => {
    module.offer(l16, Math.floor(sentAt * SAMPLES_PER_MS));
    watchWait(sentAt);
  };
  const chunkOf = (code: number): Int16Array => new Int16Array(160).fill(decodeSample(code));

  // The node.
  let tickNow = 0;
  let handler: ((tick: number) => void) | undefined;
  let dropped = 0;
  const playout = new Playout(
    {
      now: () => tickNow,
      subscribe: (h) => {
        handler = h;
        return () => (handler = undefined);
      },
    },
    {
      play: (l16) => send(chunkOf(codeOfSample(l16.readInt16LE(0)))),
      marked: () => undefined,
      dropped: (n) => (dropped += n),
    },
  );
  const queue: number[] = [];
  let lastTick: number | undefined;
  let owed = 0;
  const onTick = (tick: number): void => {
    if (policy === 'playout') return handler?.(tick);
    if (lastTick !== undefined) owed += tick - lastTick - 1;
    lastTick = tick;
    if (queue.length === 0) owed = 0;
    const extra = policy === 'catch-up' && owed > 0 ? 1 : 0;
    for (let n = 0; n < 1 + extra && queue.length > 0; n++) send(chunkOf(queue.shift() ?? QUIET));
    owed -= extra;
  };
  const onEcho = (k: number, at: number): void => {
    arrived[k] = at;
    pushed = k;
    if (policy === 'playout') playout.push(Buffer.alloc(160, codeOf(k)));
    else queue.push(codeOf(k));
  };

  // Events in time order: the module's slots, the node's timer (its ticks numbered by when it
  // fires, the ones a stall passed skipped), the echo's chunks (read once a stall ends, after
  // the timer, as Node runs timers before I/O).
  const stallEnd = (t: number): number => {
    if (s.stallMs === 0 || t < start + 500) return t;
    const from = start + 500 + Math.floor((t - start - 500) / s.stallEveryMs) * s.stallEveryMs;
    return t < from + s.stallMs ? from + s.stallMs : t;
  };
  const end = start + s.seconds * 1000;
  let fired = -1;
  const nodeStallEnd = s.stalled === 'node' ? stallEnd : (t: number): number => t;
  let nextFire = nodeStallEnd(tickOrigin + random() * s.jitterMs);
  let k = 0;
  let nextEcho = stallEnd(start + echoPhase + random() * s.jitterMs);
  for (let slot = 0; ;) {
    const slotAt = start + slot * 20;
    const t = Math.min(slotAt, nextFire, nextEcho);
    if (t > end) break;
    if (t === slotAt) {
      module.tick(Math.floor(t * SAMPLES_PER_MS));
      watchWait(t);
      slot++;
    } else if (t === nextFire) {
      fired = Math.max(Math.floor((t - tickOrigin) / 20), fired + 1);
      tickNow = fired;
      sentAt = t;
      onTick(fired);
      nextFire = nodeStallEnd(Math.max(t, tickOrigin + (fired + 1) * 20) + random() * s.jitterMs);
    } else {
      onEcho(k, t);
      k++;
      nextEcho = stallEnd(start + k * 20 + echoPhase + random() * s.jitterMs);
    }
  }
  latencies.sort((a, b) => a - b);
  const q = (p: number): number => latencies[Math.floor(p * (latencies.length - 1))] ?? NaN;
  return { p50: q(0.5), p99: q(0.99), waits: module.status().waits, waitMs, dropped };
}

/** The μ-law code whose sample this is (the playout sends L16). */
function codeOfSample(sample: number): number {
  return LOUD[INDEX_OF_SAMPLE.get(sample) ?? -1] ?? QUIET;
}

/** A small deterministic generator (mulberry32): the same figures every time. */
function seeded(seed: number): () => number {
  let state = Math.imul(seed, 0x9e3779b9) >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}
