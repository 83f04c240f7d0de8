import { collectDefaultMetrics, Registry } from 'prom-client';

/** A Prometheus registry per process, with Node's default metrics labelled by process name. */
export function createMetricsRegistry(processName: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ proc: processName });
  collectDefaultMetrics({ register: registry, prefix: 'voicegw_' });
  return registry;
}
