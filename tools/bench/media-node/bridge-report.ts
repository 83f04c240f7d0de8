import type { HopMarks } from '@voicegw/shared';
import { count, ms, msUp, perSec, us } from '../lib/format.js';
import { hostNote } from '../lib/rounds.js';
import type { Cell, ScenarioResult } from '../lib/scenario.js';
import { stepPercentiles, type TaskLoadResult } from '../lib/task-load.js';
import { PAIR_REST_MS, PAIR_WAIT } from './bridges.js';
import type { Settled } from './flows.js';
import { BRIDGE_HOPS, hopRows } from './hops.js';
import type { PacedMeasured } from './measure.js';
import { cpuRows } from './report.js';

/** Target: bridge → the commanded call bridged, p50 at most this much above the bare socket's. */
export const BRIDGE_P50_MARGIN_MS = 3;

/** One side of the comparison. */
export interface BridgeSide {
  readonly measured: PacedMeasured;
  /** How the pairs' calls were opened. */
  readonly opened: Settled<unknown>;
  /** Pairs the calls made. */
  readonly pairs: number;
}

export interface BridgeFigures {
  readonly rate: number;
  readonly gateway: BridgeSide;
  readonly bare: BridgeSide;
  readonly redisVersion: string;
  readonly eventsRead: number;
  /** The gateway's sampled bridges, stamped hop by hop (its warm-up and lead-in included). */
  readonly hops?: HopMarks;
}

const pair = (load: TaskLoadResult, step: string): string => {
  const [p50, p99] = stepPercentiles(load, step);
  return Number.isNaN(p50) ? '—' : `${ms(p50)} / ${ms(p99)}`;
};

/** A difference of latencies, signed. */
const delta = (d: number): string => (Number.isFinite(d) ? `${d >= 0 ? '+' : ''}${ms(d)}` : 'n/a');

const failedOf = (side: BridgeSide): number => side.measured.load.failed + side.opened.failed;

/** Bridges of the measured window that waited for a rested pair, and the longest wait. */
const pairWaits = (side: BridgeSide): string => {
  const waits = side.measured.load.steps.get(PAIR_WAIT);
  return waits ? `${count(waits.count)} (at most ${ms(waits.percentiles(1)[0]!)} ms)` : '0';
};

export function bridgeReport(f: BridgeFigures): ScenarioResult {
  const gw = f.gateway.measured;
  const bare = f.bare.measured;
  const [g50, g99] = stepPercentiles(gw.load, 'bridged');
  const [b50, b99] = stepPercentiles(bare.load, 'bridged');
  const d50 = g50 - b50;
  const [gwFailed, bareFailed] = [failedOf(f.gateway), failedOf(f.bare)];
  const rows: Cell[][] = [
    [`at ${f.rate} bridges/s: bridge → bridged p50 ms`, ms(g50), ms(b50), delta(d50)],
    ['bridge → bridged p99 ms', ms(g99), ms(b99), delta(g99 - b99)],
    [
      'bridge → accepted (202 / uuid_bridge +OK) p50 / p99 ms',
      pair(gw.load, 'accepted'),
      pair(bare.load, 'accepted'),
      '',
    ],
    ['bridge → its command.result p50 / p99 ms', pair(gw.load, 'result'), '—', ''],
    [
      "bridge → the other party's call.bridged p50 / p99 ms",
      pair(gw.load, 'peer bridged'),
      '—',
      '',
    ],
    [
      'unbridge → unbridged (both call.unbridged / CHANNEL_UNBRIDGE) p50 / p99 ms',
      pair(gw.load, 'unbridged'),
      pair(bare.load, 'unbridged'),
      '',
    ],
    ...(f.hops
      ? hopRows(
          f.hops,
          bare.load,
          `at ${f.rate} bridges/s: where a bridge's time goes`,
          BRIDGE_HOPS,
        )
      : []),
    ['bridges/s reached', perSec(gw.load.perSec), perSec(bare.load.perSec), ''],
    ...cpuRows('bridge', gw, bare, (g, b) => us(g - b)),
    ['failed bridges (and calls that did not come up)', count(gwFailed), count(bareFailed), ''],
  ];
  const failures = [
    ...gw.load.errors,
    ...f.gateway.opened.errors,
    ...bare.load.errors,
    ...f.bare.opened.errors,
  ];
  return {
    columns: ['measurement', 'gateway', 'bare event socket', 'gateway − bare'],
    rows,
    checks: [
      {
        target: `bridge → bridged p50 within ${BRIDGE_P50_MARGIN_MS} ms of the bare event socket at ${f.rate}/s`,
        actual: `${d50 >= 0 ? '+' : ''}${msUp(d50)} ms (${ms(g50)} − ${ms(b50)})`,
        pass: d50 <= BRIDGE_P50_MARGIN_MS,
      },
      {
        target:
          'every pair came up and every bridge completed (otherwise the figures are not valid)',
        actual: `${count(gwFailed)} gateway, ${count(bareFailed)} baseline failed`,
        pass: gwFailed === 0 && bareFailed === 0,
      },
    ],
    chart: [
      { label: `bridge → bridged p50 at ${f.rate}/s`, unit: 'ms', value: g50, baseline: b50 },
      { label: `bridge → bridged p99 at ${f.rate}/s`, unit: 'ms', value: g99, baseline: b99 },
    ],
    notes: [
      `gateway: simulator → media node → Redis ${f.redisVersion} (AOF everysec) → api, each in a ` +
        `process of its own; \`POST …/commands/bridge {session_uuid}\` on one answered call of a ` +
        `pair with the other (both on the one media node: uuid_setvar park_after_bridge and ` +
        `hangup_after_bridge on both, then uuid_bridge), then \`unbridge\` on the other ` +
        `(uuid_park); events read from the Redis event stream as the webhook dispatcher reads ` +
        `them (${count(f.eventsRead)} read)`,
      `baseline: the same simulator driven by the load generator over a bare event socket, as ` +
        `the media node drives it: \`api uuid_setvar\` park_after_bridge=true and ` +
        `hangup_after_bridge=false on both channels (one at a time per channel, both channels ` +
        `at once), \`api uuid_bridge a b\`, then \`api uuid_park b\`; no media node, api or Redis`,
      `bridged: from the generator's first write (the POST; the first uuid_setvar) to its read ` +
        `of the commanded call's confirmation: its call.bridged on the event stream, or the ` +
        `CHANNEL_BRIDGE FreeSWITCH reports on that channel (the originator). Both are the first ` +
        `moment a program learns the bridge is made, on the same machine by the same process`,
      `open-loop pace of ${f.rate} bridges/s (each with its unbridge), latency from each ` +
        `bridge's scheduled start; ${f.gateway.pairs} and ${f.bare.pairs} pairs of answered ` +
        `calls (one app each) taken in turn, each resting ${PAIR_REST_MS} ms after its ` +
        `unbridge (the api's 1000 ms connect cooldown; the baseline's rest as long, so both ` +
        `carry the same load); bridges that waited for a pair: ${pairWaits(f.gateway)} gateway, ` +
        `${pairWaits(f.bare)} baseline. Baseline first, then the gateway: once ` +
        `a media node is connected it takes every parked call, so the two cannot alternate`,
      `reached ${perSec(gw.load.perSec)} and ${perSec(bare.load.perSec)} bridges/s over ` +
        `${gw.load.seconds.toFixed(1)} and ${bare.load.seconds.toFixed(1)} s; ` +
        `${count(gw.load.completed)} and ${count(bare.load.completed)} completed`,
      `CPU per bridge: user + system time of each process during the measured window, over the ` +
        `bridges completed, their unbridges included; wait for a CPU per wake-up: how long each ` +
        `process's event loop, once woken, waited on average for a core (Linux schedstat)`,
      hostNote([bare.host, gw.host]),
      ...(failures.length > 0 ? [`first failures: ${failures.slice(0, 3).join(' | ')}`] : []),
    ],
  };
}
