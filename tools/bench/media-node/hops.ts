import { hopTrace, type HopMarks } from '@voicegw/shared';
import { ms } from '../lib/format.js';
import type { Cell } from '../lib/scenario.js';
import { LatencySamples } from '../lib/stats.js';
import { stepPercentiles, type TaskLoadResult } from '../lib/task-load.js';
import type { Gateway } from './stack.js';

/**
 * A hop of a command through the gateway, as the processes stamp it (shared/src/hop-trace.ts):
 * the generator (`bench.*`), the api (`api.*`), the media node (`node.*`). Each row is the time
 * from the previous stamp; `baseline` names the step of the bare event-socket command that does
 * the same work.
 */
interface Hop {
  readonly hop: string;
  readonly label: string;
  readonly baseline?: string;
}

/** `answer`'s hops, in order. */
const ANSWER_HOPS: readonly Hop[] = [
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

/**
 * `bridge`'s hops, in order. Its start returns before FreeSWITCH is asked (`node.accepted` says
 * nothing), so one row runs from the start to its confirmation: the call's CHANNEL_BRIDGE, its
 * call.bridged published; the baseline's `bridged` is the same work over the bare socket.
 */
export const BRIDGE_HOPS: readonly Hop[] = [
  { hop: 'bench.sent', label: '' },
  { hop: 'api.received', label: 'POST sent → api handler (HTTP, auth)' },
  { hop: 'api.appended', label: 'api handler → command appended (Lua, both sessions, XADD)' },
  { hop: 'node.read', label: 'appended → read by the node (XREADGROUP)' },
  { hop: 'node.started', label: 'read → started (session queue)' },
  {
    hop: 'node.confirmed',
    label: 'started → uuid_setvar, uuid_bridge, CHANNEL_BRIDGE, call.bridged XADD',
    baseline: 'bridged',
  },
  { hop: 'node.result', label: 'call.bridged → command.result publishing (session queue)' },
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
export function hopRows(
  marks: HopMarks,
  raw: TaskLoadResult | undefined,
  title: string,
  hops: readonly Hop[] = ANSWER_HOPS,
): Cell[][] {
  const complete = Object.values(marks).filter((m) => hops.every(({ hop }) => hop in m));
  const rows: Cell[][] = [[`${title} (${complete.length} sampled)`, '', '', '']];
  for (let i = 1; i < hops.length; i++) {
    const { hop, label, baseline } = hops[i]!;
    const from = hops[i - 1]!.hop;
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
