import type { Activity } from '../lib/cpu-time.js';
import type { BenchOptions } from '../lib/options.js';
import { closedTasks, pacedTasks, type TaskLoadResult } from '../lib/task-load.js';
import { promptCall } from './flows.js';
import { servePrompt } from './rooms.js';
import { MediaStack, perProcess, type ActivitySnapshot, type PerProcess } from './stack.js';

/** An ordinary rate for one media node (the operations issue's real FreeSWITCH ran 15 calls/s). */
export const PACED_CALLS_PER_SEC = 15;
/** Target: CPU per call at that rate at most this many times the figure at the maximum rate. */
export const PACED_TO_MAX_TARGET = 4;
/**
 * Calls in flight at the maximum rate. Each holds its line for the 1 s prompt and more; from
 * about 600 on, CPU per call stops falling (1,000 gave the same figures at 330 calls/s).
 */
const MAX_CALLERS = 600;
const APPS = 20;
/** After the warm-up, before the paced run: the warm-up's garbage collected, its sockets idle. */
const SETTLE_MS = 5000;
/** The paced run is at least this long, so that some 300 calls are counted. */
const MIN_PACED_SEC = 20;

/** What each process spent per call during one run. */
export interface CallCost {
  readonly load: TaskLoadResult;
  /** CPU per completed call (µs), every thread. */
  readonly cpuUs: PerProcess<number>;
  /** Event-loop wake-ups per completed call. */
  readonly wakeups: PerProcess<number>;
}

export interface PromptCalls {
  readonly max: CallCost;
  readonly paced: CallCost;
  readonly callers: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls with a prompt (answer, a 1 s playback, hangup, each step on the webhook of the one
 * before) on the gateway as production runs it: JSON logs at `info`, the dispatcher delivering
 * every event to the load generator (the apps' webhook receiver), no launcher. First a warm-up at
 * the maximum rate, then PACED_CALLS_PER_SEC for MIN_PACED_SEC (or `--duration`), then the
 * maximum again for `--duration`, measured: each process's CPU and wake-ups per call, read from
 * /proc. What a process does whatever the rate (timers, heartbeats) counts in both: at an
 * ordinary rate that is part of what a call costs.
 */
export async function measurePromptCalls(
  options: BenchOptions,
  log: (line: string) => void,
): Promise<PromptCalls> {
  const stack = await MediaStack.start(options);
  const prompt = await servePrompt();
  try {
    const gw = await stack.startGateway(APPS, MAX_CALLERS * 2, {}, 'production');
    let next = 0;
    const call = (record: (step: string, ms: number) => void) =>
      promptCall(gw, stack.control, gw.apps[next++ % gw.apps.length]!, prompt.url, record);
    log(`prompt calls: warm-up, ${MAX_CALLERS} at once, ${options.warmupSec} s`);
    await closedTasks(MAX_CALLERS, options.warmupSec, call);
    await sleep(SETTLE_MS);
    const pacedSec = Math.max(MIN_PACED_SEC, options.durationSec);
    log(`prompt calls: ${PACED_CALLS_PER_SEC} a second, ${pacedSec} s`);
    const paced = await costOf(stack, () => pacedTasks(PACED_CALLS_PER_SEC, pacedSec, call));
    log(`prompt calls: ${MAX_CALLERS} at once, ${options.durationSec} s`);
    const max = await costOf(stack, () => closedTasks(MAX_CALLERS, options.durationSec, call));
    return { max, paced, callers: MAX_CALLERS };
  } finally {
    await prompt.close();
    await stack.stop();
  }
}

/** Runs `load` and divides what each process did meanwhile by the calls completed. */
async function costOf(stack: MediaStack, load: () => Promise<TaskLoadResult>): Promise<CallCost> {
  const before = stack.activity();
  const result = await load();
  const after = stack.activity();
  const per = (pick: (a: Activity) => number) => perCall(before, after, result.completed, pick);
  return {
    load: result,
    cpuUs: per((a) => a.cpuMs * 1000),
    wakeups: per((a) => a.wakeups),
  };
}

function perCall(
  before: ActivitySnapshot,
  after: ActivitySnapshot,
  calls: number,
  pick: (a: Activity) => number,
): PerProcess<number> {
  return perProcess((k) => {
    const [a, b] = [before[k], after[k]];
    return a && b ? (pick(b) - pick(a)) / calls : Number.NaN;
  });
}
