import type { HopMarks } from '@voicegw/shared';
import type { BenchOptions } from '../lib/options.js';
import { redisUsedMemory } from '../lib/redis-info.js';
import { calmly, type HostRecord } from '../lib/rounds.js';
import { closedTasks, pacedTasks, type Recorder, type TaskLoadResult } from '../lib/task-load.js';
import type { MemoryReply } from '../servers/protocol.js';
import { gatewayCall, gatewayCommand, inParallel, type LiveCall } from './flows.js';
import {
  cpuPerOp,
  waitPerRun,
  type CpuSnapshot,
  type Gateway,
  type MediaStack,
  type PerProcess,
} from './stack.js';

/** Commands per second of the latency probe: a moderate load, the same for both sides. */
export const PROBE_RATE = 100;
/** A command not executed within the contract's deferred timeout has failed anyway. */
export const SUSTAINED_P99_MS = 2000;

export interface Measured {
  readonly load: TaskLoadResult;
  /** CPU per completed task (µs) of each process. */
  readonly cpu: CpuSnapshot;
  /** Mean wait for a CPU per wake-up (µs) of each process's event loop. */
  readonly cpuWait: PerProcess<number>;
}

type Task = (record: Recorder) => Promise<unknown>;

/** A warm-up, then maximum throughput with `connections` tasks in flight, with CPU per task. */
export async function measureMax(
  stack: MediaStack,
  options: BenchOptions,
  task: Task,
): Promise<Measured> {
  await closedTasks(options.connections, options.warmupSec, task);
  const [before, waitsBefore] = [await stack.cpu(), stack.waits()];
  const load = await closedTasks(options.connections, options.durationSec, task);
  return {
    load,
    cpu: cpuPerOp(before, await stack.cpu(), load.completed),
    cpuWait: waitPerRun(waitsBefore, stack.waits()),
  };
}

export interface PacedMeasured extends Measured {
  /** What the host took during the measured window, and whether it was measured again. */
  readonly host: HostRecord;
}

/**
 * Latency at `rate` tasks per second: a warm-up at that rate (not recorded), then, once the host
 * is calm (rounds.ts), a 1 s lead-in at the same rate, since the calm wait left the processes
 * idle, and the measured window, with CPU per task.
 */
export async function measurePaced(
  stack: MediaStack,
  options: BenchOptions,
  rate: number,
  task: Task,
): Promise<PacedMeasured> {
  await pacedTasks(rate, options.warmupSec, task);
  const measured = await calmly(
    async () => {
      await pacedTasks(rate, 1, task);
      const [before, waitsBefore] = [await stack.cpu(), stack.waits()];
      const load = await pacedTasks(rate, options.durationSec, task);
      return {
        load,
        cpu: cpuPerOp(before, await stack.cpu(), load.completed),
        cpuWait: waitPerRun(waitsBefore, stack.waits()),
      };
    },
    { sensitivity: 'latency' },
  );
  return { ...measured.result, host: measured };
}

/** Round robin over live calls. */
export function roundRobin(
  calls: readonly LiveCall[],
  command: (call: LiveCall, record: Recorder) => Promise<void>,
): Task {
  let i = 0;
  return (record) => command(calls[i++ % calls.length] as LiveCall, record);
}

export interface CommandsMeasured extends Measured {
  /** At PROBE_RATE commands per second. */
  readonly probe: TaskLoadResult;
  /** The probe's hop stamps (see hops.ts), when `hops` was given. */
  readonly hops: HopMarks;
}

/** Maximum throughput, then the probe; `hops` collects the stamps of the probe's commands. */
export async function measureCommands(
  stack: MediaStack,
  options: BenchOptions,
  task: Task,
  hops?: () => Promise<HopMarks>,
): Promise<CommandsMeasured> {
  const max = await measureMax(stack, options, task);
  await hops?.();
  const probe = await pacedTasks(PROBE_RATE, options.durationSec, task);
  return { ...max, probe, hops: (await hops?.()) ?? {} };
}

export interface MemoryPoint {
  readonly node: MemoryReply;
  readonly simulator: MemoryReply;
  readonly redis: number;
}

export interface RampStep {
  readonly sessions: number;
  readonly failedToOpen: number;
  readonly memory: MemoryPoint;
  readonly probe: TaskLoadResult;
  readonly sustained: boolean;
}

export interface Ramp {
  readonly zero: MemoryPoint;
  readonly steps: readonly RampStep[];
  readonly errors: readonly string[];
  /** The calls still up at the end, for the caller to hang up. */
  readonly live: readonly LiveCall[];
}

/**
 * Bytes per live session of one memory figure: the least-squares slope over the ramp's steps
 * (the first step's warm-up — compiled code, pools, caches — is a constant, not per session);
 * with a single step, its growth from before the ramp.
 */
export function perSession(ramp: Ramp, pick: (m: MemoryPoint) => number): number {
  const steps = ramp.steps.filter((s) => s.sustained);
  const points = steps.length >= 2 ? steps : ramp.steps.slice(0, 1);
  if (points.length === 0) return Number.NaN;
  if (points.length === 1) {
    const [only] = points as [RampStep];
    return (pick(only.memory) - pick(ramp.zero)) / only.sessions;
  }
  const n = points.length;
  const mx = points.reduce((a, s) => a + s.sessions, 0) / n;
  const my = points.reduce((a, s) => a + pick(s.memory), 0) / n;
  const sxy = points.reduce((a, s) => a + (s.sessions - mx) * (pick(s.memory) - my), 0);
  const sxx = points.reduce((a, s) => a + (s.sessions - mx) ** 2, 0);
  return sxy / sxx;
}

async function memory(stack: MediaStack, gw: Gateway): Promise<MemoryPoint> {
  return {
    node: await gw.node.memory(),
    simulator: await stack.sim.memory(),
    redis: await redisUsedMemory(stack.redis),
  };
}

/** 1/10, 1/4, 1/2 and all of `max`. */
const rampSteps = (max: number): number[] =>
  [...new Set([max / 10, max / 4, max / 2, max].map((n) => Math.max(1, Math.round(n))))].sort(
    (a, b) => a - b,
  );

/**
 * Live sessions in steps: each step opens more inbound calls through the gateway (answered, left
 * up), then reads the memory of the media node and the simulator (after a full GC) and probes
 * command latency at PROBE_RATE for 2 s. A step is sustained when every call came up and every
 * probe command executed with p99 under SUSTAINED_P99_MS; the ramp stops at the first that is not.
 */
export async function rampSessions(
  stack: MediaStack,
  gw: Gateway,
  options: BenchOptions,
  log: (line: string) => void,
): Promise<Ramp> {
  const zero = await memory(stack, gw);
  const live: LiveCall[] = [];
  const steps: RampStep[] = [];
  const errors: string[] = [];
  const noRecord: Recorder = () => undefined;
  for (const target of rampSteps(options.sessions)) {
    log(`ramp: opening calls up to ${target} live sessions`);
    const wanted = Array.from({ length: target - live.length }, (_, i) => i);
    const opened = await inParallel(wanted, options.connections, (i) =>
      gatewayCall(gw, stack.control, gw.apps[(live.length + i) % gw.apps.length]!, noRecord, true),
    );
    const failedToOpen = opened.failed;
    for (const message of opened.errors) if (errors.length < 3) errors.push(message);
    live.push(...opened.ok);
    const point = await memory(stack, gw);
    const probe = await pacedTasks(
      PROBE_RATE,
      2,
      roundRobin(live, (c, r) => gatewayCommand(gw, c, r)),
    );
    const [, p99 = Number.NaN] = probe.steps.get('executed')?.percentiles(0.5, 0.99) ?? [];
    const sustained = failedToOpen === 0 && probe.failed === 0 && p99 < SUSTAINED_P99_MS;
    steps.push({ sessions: live.length, failedToOpen, memory: point, probe, sustained });
    log(
      `ramp: ${live.length} live sessions, node heap ${(point.node.heapUsed / 2 ** 20).toFixed(1)} MiB, ` +
        `command p99 ${p99.toFixed(1)} ms${sustained ? '' : ' — not sustained, stopping'}`,
    );
    if (!sustained) break;
  }
  return { zero, steps, errors, live };
}
