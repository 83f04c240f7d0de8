import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * How often the event-loop delay is sampled (ms). prom-client's 10 ms woke every process 100
 * times a second, idle or not, for a histogram read once a scrape (15 s): 100 ms still gives
 * 150 samples a scrape for the lag percentiles the dashboard plots, and a loop blocked for a
 * share of the time shows in that share of the samples at any rate.
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/** A Prometheus registry per process, with Node's default metrics labelled by process name. */
export function createMetricsRegistry(processName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ proc: processName });
  collectDefaultMetrics({
    register: registry,
    prefix: 'voicegw_',
    eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS,
  });
  return registry;
}

/**
 * The labelled children of one metric, each looked up once: prom-client hashes the label set on
 * every `inc` or `observe` otherwise, which shows on a hot path. Only for labels with few values
 * (route patterns, outcomes, event names): every combination seen is kept.
 */
export class LabelledChildren<Child> {
  private readonly children = new Map<string, Child>();

  constructor(private readonly make: (...values: string[]) => Child) {}

  get(...values: string[]): Child {
    const key = values.join('\0');
    let child = this.children.get(key);
    if (!child) {
      child = this.make(...values);
      this.children.set(key, child);
    }
    return child;
  }
}
