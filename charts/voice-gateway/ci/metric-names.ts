// Alerts and dashboard panels may only name metrics the processes expose: the voicegw_ names in
// the source files that define metrics (those importing prom-client), Node's default metrics
// under the voicegw_ prefix, and what Prometheus and kube-state-metrics provide (up, kube_*).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createMetricsRegistry } from '@voicegw/shared';
import { ROOT } from './helm.js';

const SOURCES = ['api/src', 'media-node/src', 'shared/src'];
const HISTOGRAM_SERIES = /_(bucket|sum|count)$/;

function* typescriptFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* typescriptFiles(path);
    else if (entry.name.endsWith('.ts')) yield path;
  }
}

/** Every metric name the gateway's processes can expose. */
export async function exposedMetrics(): Promise<Set<string>> {
  const names = new Set<string>();
  for (const source of SOURCES) {
    for (const file of typescriptFiles(`${ROOT}${source}`)) {
      const text = readFileSync(file, 'utf8');
      if (!text.includes("from 'prom-client'")) continue;
      for (const match of text.matchAll(/'(voicegw_[a-z0-9_]+)'/g)) {
        if (match[1]) names.add(match[1]);
      }
    }
  }
  const defaults = createMetricsRegistry('chart-check');
  for (const metric of await defaults.getMetricsAsJSON()) names.add(metric.name);
  defaults.clear();
  return names;
}

/** The voicegw_ metrics an expression names that no process exposes. */
export function unknownMetrics(expression: string, exposed: ReadonlySet<string>): string[] {
  const used = expression.match(/\bvoicegw_[a-z0-9_]+/g) ?? [];
  return used.filter(
    (name) => !exposed.has(name) && !exposed.has(name.replace(HISTOGRAM_SERIES, '')),
  );
}
