import { collectGeneratorGarbage } from './generator-gc.js';
import { LatencySamples } from './stats.js';

/** Named latencies (ms) a task records for its steps, e.g. `setup`, `answer`, `hangup`. */
export type Recorder = (step: string, ms: number) => void;

/** One load of asynchronous tasks (calls, commands), each a sequence of awaited steps. */
export interface TaskLoadResult {
  readonly completed: number;
  readonly failed: number;
  readonly seconds: number;
  readonly perSec: number;
  /** The first failures' messages, for the notes. */
  readonly errors: readonly string[];
  readonly steps: ReadonlyMap<string, LatencySamples>;
}

/** p50 and p99 of a step, NaN when it was never recorded. */
export function stepPercentiles(result: TaskLoadResult, step: string): [number, number] {
  const [p50 = Number.NaN, p99 = Number.NaN] = result.steps.get(step)?.percentiles(0.5, 0.99) ?? [];
  return [p50, p99];
}

class Tally {
  completed = 0;
  failed = 0;
  readonly errors: string[] = [];
  readonly steps = new Map<string, LatencySamples>();
  readonly record: Recorder = (step, ms) => {
    let samples = this.steps.get(step);
    if (!samples) this.steps.set(step, (samples = new LatencySamples()));
    samples.add(ms);
  };

  async run(task: (record: Recorder) => Promise<unknown>): Promise<void> {
    try {
      await task(this.record);
      this.completed++;
    } catch (err) {
      this.failed++;
      if (this.errors.length < 3)
        this.errors.push(err instanceof Error ? err.message : String(err));
    }
  }

  result(started: number): TaskLoadResult {
    const seconds = (performance.now() - started) / 1000;
    return { ...this, seconds, perSec: this.completed / seconds, steps: this.steps };
  }
}

/**
 * Maximum throughput: `concurrency` workers each run the task again as soon as the last one
 * finished, for `durationSec`. A task failure is counted and the worker goes on.
 */
export async function closedTasks(
  concurrency: number,
  durationSec: number,
  task: (record: Recorder) => Promise<unknown>,
): Promise<TaskLoadResult> {
  const tally = new Tally();
  const started = performance.now();
  const deadline = started + durationSec * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) await tally.run(task);
    }),
  );
  return tally.result(started);
}

/** A fixed arrival rate (open loop): tasks start evenly spread, however long earlier ones take. */
export async function pacedTasks(
  rate: number,
  durationSec: number,
  task: (record: Recorder) => Promise<unknown>,
): Promise<TaskLoadResult> {
  const tally = new Tally();
  collectGeneratorGarbage();
  const started = performance.now();
  const total = Math.round(rate * durationSec);
  const running: Promise<void>[] = [];
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) running.push(tally.run(task));
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(running);
  return tally.result(started);
}
