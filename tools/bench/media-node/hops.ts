import { hopTrace, type HopMarks } from '@voicegw/shared';
import { ms } from '../lib/format.js';
import type { Cell } from '../lib/scenario.js';
import { LatencySamples } from '../lib/stats.js';
import { stepPercentiles, type TaskLoadResult } from '../lib/task-load.js';
import type { Gateway } from './stack.js';

/**
 * The hops of a command through the gateway, in order, as the processes stamp them
 * (shared/src/hop-trace.ts): the generator (`bench.*`), the api (`api.*`), the media node
 * (`node.*`). Each row is the time from the previous stamp; `baseline` names the step of the
 * bare event-socket command that does the same work.
 */
const HOPS: readonly {
  readonly hop: string;
  readonly label: string;
  readonly baseline?: string;
}[] = [
  { hop: 'bench.sent', label: '' },
  { hop: 'api.received', label: 'POST sent → api handler (HTTP, auth)' },
  { hop: 'api.appended', label: 'api handler → command appended (Lua, XADD)' },
  { hop: 'node.read', label: 'appended → read by the node (XREADGROUP)' },
  { hop: 'node.started', label: 'read → started (session queue), sendmsg written' },
  { hop: 'node.accepted', label: 'sendmsg → FreeSWITCH reply', baseline: 'accepted' },
  { hop: 'node.confirmed', label: 'reply → confirming event', baseline: 'confirmed' },
  { hop: 'node.result', label: 'event → command.result publishing (queue, call.answered)' },
  { hop: 'node.published', label: 'command.result XADD' },
  { hop: 'bench.read', label: 'published → read by the generator (XREAD)' },
];

/** Every process's stamps since the last call, by operation. */
export async function collectHops(gw: Gateway): Promise<HopMarks> {
  const parts = [await gw.api.hops(), await gw.node.hops(), hopTrace.take()];
  const merged: HopMarks = {};
  for (const part of parts) {
    for (const [op, hops] of Object.entries(part)) merged[op] = { ...merged[op], ...hops };
  }
  return merged;
}

/**
 * Table rows: p50 / p99 of each hop over the operations stamped at every hop; `raw`, the bare
 * socket's commands, fills the baseline column of the hops it also has.
 */
export function hopRows(marks: HopMarks, raw: TaskLoadResult | undefined, title: string): Cell[][] {
  const complete = Object.values(marks).filter((m) => HOPS.every(({ hop }) => hop in m));
  const rows: Cell[][] = [[`${title} (${complete.length} sampled)`, '', '', '']];
  for (let i = 1; i < HOPS.length; i++) {
    const { hop, label, baseline } = HOPS[i]!;
    const from = HOPS[i - 1]!.hop;
    const samples = new LatencySamples(complete.length);
    for (const m of complete) samples.add(m[hop]! - m[from]!);
    const [p50 = Number.NaN, p99 = Number.NaN] = samples.percentiles(0.5, 0.99);
    const bare = baseline && raw ? stepPercentiles(raw, baseline) : undefined;
    rows.push([
      `  ${label} p50 / p99 ms`,
      `${ms(p50)} / ${ms(p99)}`,
      bare ? `${ms(bare[0])} / ${ms(bare[1])}` : '',
      '',
    ]);
  }
  return rows;
}
