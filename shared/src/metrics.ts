import { collectDefaultMetrics, Registry } from 'prom-client';

/** A Prometheus registry per process, with Node's default metrics labelled by process name. */
export function createMetricsRegistry(processName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ proc: processName });
  collectDefaultMetrics({ register: registry, prefix: 'voicegw_' });
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
