import type { Activity } from '../lib/cpu-time.js';
import { median } from '../lib/stats.js';
import { perProcess, type ActivitySnapshot, type MediaStack, type PerProcess } from './stack.js';

/** Target of the operations issue: each gateway process, Redis included, idle. */
export const IDLE_CPU_TARGET_MS_PER_SEC = 2;
/**
 * Start-up left to settle before measuring: JIT, first balancing and beats, and above all the
 * garbage of loading the code, which V8 collects in a few full collections (tens of ms each)
 * once a process goes quiet, the last of them some 30 s after start.
 */
const SETTLE_MS = 40_000;
/** One window: two of the 5 s timers (sweeps, heartbeats) fall in each. */
export const IDLE_WINDOW_SEC = 10;

/** What one process did per second of an idle window. */
export interface IdleRate {
  readonly cpuMsPerSec: number;
  readonly wakeupsPerSec: number;
}

export interface IdleFigures {
  readonly windows: readonly PerProcess<IdleRate>[];
  /** Per process, the median window's figures: what the process does while nothing happens. */
  readonly median: PerProcess<IdleRate>;
  /** Per process, the mean over all the windows, start-up's late garbage collections included. */
  readonly mean: PerProcess<IdleRate>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The stack with no calls: each process's CPU time (every thread, exact) and its event loop's
 * wake-ups per second in `windows` windows of IDLE_WINDOW_SEC, read from /proc before and after
 * each, so that measuring sends no process a message. The median window is the figure: a late
 * collection of start-up's garbage, or another program's burst on the machine, lands in one
 * window of several.
 */
export async function measureIdle(stack: MediaStack, windows: number): Promise<IdleFigures> {
  await sleep(SETTLE_MS);
  const measured: PerProcess<IdleRate>[] = [];
  let before = stack.activity();
  for (let i = 0; i < windows; i++) {
    const started = performance.now();
    await sleep(IDLE_WINDOW_SEC * 1000);
    const after = stack.activity();
    measured.push(perSecond(before, after, (performance.now() - started) / 1000));
    before = after;
  }
  const across = (reduce: (values: readonly number[]) => number): PerProcess<IdleRate> =>
    perProcess((k) => ({
      cpuMsPerSec: reduce(measured.map((w) => w[k].cpuMsPerSec)),
      wakeupsPerSec: reduce(measured.map((w) => w[k].wakeupsPerSec)),
    }));
  return { windows: measured, median: across(median), mean: across(mean) };
}

const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / values.length;

/** Per-second rates of each process between two snapshots; NaN for one not running. */
function perSecond(
  before: ActivitySnapshot,
  after: ActivitySnapshot,
  seconds: number,
): PerProcess<IdleRate> {
  return perProcess((k) => {
    const [a, b]: (Activity | undefined)[] = [before[k], after[k]];
    return a && b
      ? {
          cpuMsPerSec: (b.cpuMs - a.cpuMs) / seconds,
          wakeupsPerSec: (b.wakeups - a.wakeups) / seconds,
        }
      : { cpuMsPerSec: Number.NaN, wakeupsPerSec: Number.NaN };
  });
}
