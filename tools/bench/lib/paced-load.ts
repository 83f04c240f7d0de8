import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool, type Dispatcher } from 'undici';
import { collectGeneratorGarbage } from './generator-gc.js';
import { LatencySamples, loadResult, StatusCounts, type LoadResult } from './stats.js';
import type { LoadTarget, RequestSpec } from './target.js';

export interface PacedLoadResult extends LoadResult {
  /**
   * p99 of the load generator's own event-loop delay (ms): when the machine is busy with other
   * work the generator is late too, and latency figures say more about the machine than about
   * the server.
   */
  readonly generatorDelayP99Ms: number;
}

export interface PacedRunOptions {
  /** Requests per second, spread evenly over each second. */
  readonly rate: number;
  /** The measured window. */
  readonly durationSec: number;
  /**
   * Load at the same rate just before the measured window, without a break: its requests are
   * sent and their statuses counted, but their latencies are not recorded (see the class note).
   */
  readonly leadInSec?: number;
}

/** How often the scheduler wakes up; requests due in between are sent together. */
const TICK_MS = 1;

/**
 * Latency at a fixed arrival rate (open loop, like k6's constant-arrival-rate or wrk2).
 * autocannon's `overallRate` is not used here: it lets every connection send its whole quota
 * for the second back to back and then idle, so the first part of each second runs at full
 * load and the percentiles describe bursts, not the rate asked for. Latency is measured from
 * the moment a request is handed to the pool, so time spent waiting for a free connection
 * (the server falling behind) counts; the scheduler's own lateness does not.
 *
 * One pool of `connections` serves every run of a target, as wrk2 opens its connections once:
 * a warm-up run warms the connections too. A fresh pool for the measured run cost the load
 * generator itself (new clients, new parsers) so much that the first few hundred ms of every
 * run showed 10-40 ms latencies that were not the server's.
 *
 * A measured window starts after a lead-in at the same rate, as wrk2 paces for a calibration
 * period before its figures mean anything. The processes of a run are cold when a run starts:
 * the servers have been idle while the other target was measured, and the generator has just
 * collected its garbage. Traced on a calm host (no pause, no steal), the first 100-300 ms of a
 * run came back 5-30 ms late, on the bare baseline too, in most runs; in some they were over
 * half of the requests above the p99 of the whole run. That describes a cold start, not the
 * latency at a rate, which the lead-in leaves out.
 *
 * Each request is an `Exchange` handed to `Pool.dispatch`, not a `pool.request()` promise with
 * a body stream: the generator shares two cores with the servers it measures, and every
 * microsecond and every object it spends per request is taken from them or comes back as a
 * garbage-collection pause that shows up as server latency.
 */
export class PacedLoad {
  private readonly pool: Pool;

  constructor(
    private readonly target: LoadTarget,
    connections: number,
  ) {
    this.pool = new Pool(target.origin, { connections, pipelining: 1 });
  }

  async run(options: PacedRunOptions): Promise<PacedLoadResult> {
    const { pool, target } = this;
    const leadIn = Math.round(options.rate * (options.leadInSec ?? 0));
    const measured = Math.round(options.rate * options.durationSec);
    const total = leadIn + measured;
    const latencies = new LatencySamples(measured);
    const statuses = new StatusCounts();
    collectGeneratorGarbage();
    let sent = 0;
    let finished = 0;

    const delay = monitorEventLoopDelay({ resolution: 1 });
    const start = performance.now();
    // The measured window starts when the schedule reaches its first request.
    const measuredFrom = start + (leadIn / options.rate) * 1000;
    try {
      await new Promise<void>((resolve) => {
        const done = (): void => {
          finished++;
          if (finished === total) resolve();
        };
        if (total === 0) return resolve();
        const tick = (): void => {
          const due = Math.min(
            total,
            Math.floor(((performance.now() - start) / 1000) * options.rate),
          );
          while (sent < due) {
            if (sent === leadIn) delay.enable();
            const spec = target.next();
            const recorded = sent >= leadIn ? latencies : undefined;
            pool.dispatch(dispatchOptions(spec), new Exchange(recorded, statuses, done));
            sent++;
          }
          if (sent < total) setTimeout(tick, TICK_MS);
        };
        tick();
      });
    } finally {
      delay.disable();
    }
    const seconds = (performance.now() - measuredFrom) / 1000;
    return {
      ...loadResult(latencies, statuses, seconds, target.expectedStatus),
      generatorDelayP99Ms: delay.percentile(99) / 1e6,
    };
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}

const dispatchOptions = (spec: RequestSpec): Dispatcher.DispatchOptions => ({
  method: spec.method,
  path: spec.path,
  headers: spec.headers,
});

/**
 * One request: its status is counted when the answer has been read, and its latency recorded
 * when it belongs to the measured window (`latencies` given).
 */
class Exchange implements Dispatcher.DispatchHandler {
  private readonly started = performance.now();
  private status = 0;

  constructor(
    private readonly latencies: LatencySamples | undefined,
    private readonly statuses: StatusCounts,
    private readonly done: () => void,
  ) {}

  /** undici tells the handler styles apart by this method: ours is the current one. */
  onRequestStart(): void {}

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number): void {
    this.status = statusCode;
  }

  onResponseEnd(): void {
    this.latencies?.add(performance.now() - this.started);
    this.statuses.add(this.status);
    this.done();
  }

  /** A transport error or a dropped connection: counted as status 0, like a timeout. */
  onResponseError(): void {
    this.statuses.add(0);
    this.done();
  }
}
