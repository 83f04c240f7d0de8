import { collectDefaultMetrics, Registry } from 'prom-client';

/**
 * How often the event-loop delay is sampled (ms). prom-client's 10 ms woke every process 100
 * times a second, idle or not, for a histogram read once a scrape (15 s); it was the most
 * frequent wake-up of an idle process even at 100 ms. At 200 ms a scrape has 75 samples: the
 * p99 the dashboard plots is the worst delay of the scrape, a stall of 200 ms or more is always
 * in it (the sample due during it comes late), and a shorter one as often as it overlaps a
 * sample's due time.
 */
const EVENT_LOOP_SAMPLE_MS = 200;

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
