import type { HopMarks } from '@voicegw/shared';
import { count, mib, ms, perSec, ratio, us } from '../lib/format.js';
import type { BenchOptions } from '../lib/options.js';
import type { Cell, ChartBar, Check, ScenarioResult } from '../lib/scenario.js';
import type { Settled } from './flows.js';
import { hopRows } from './hops.js';
import { stepPercentiles, type TaskLoadResult } from '../lib/task-load.js';
import {
  perSession,
  PROBE_RATE,
  SUSTAINED_P99_MS,
  type CommandsMeasured,
  type Measured,
  type MemoryPoint,
  type Ramp,
} from './measure.js';

export interface MediaNodeFigures {
  readonly rawCalls: Measured;
  readonly rawCommands: CommandsMeasured;
  readonly calls: Measured;
  /** The hop stamps of the `answer` commands of the calls at maximum (warm-up included). */
  readonly callHops: HopMarks;
  readonly commands: CommandsMeasured;
  readonly ramp: Ramp;
  /** Calls that did not come up while the command measurements opened theirs. */
  readonly openFailures: {
    readonly gateway: Settled<unknown>;
    readonly baseline: Settled<unknown>;
  };
  readonly redisVersion: string;
  readonly eventsRead: number;
}

const kib = (bytes: number): string => (Number.isFinite(bytes) ? (bytes / 1024).toFixed(1) : 'n/a');

/** `p50 / p99` of a step, as one cell. */
function pair(load: TaskLoadResult, step: string): string {
  const [p50, p99] = stepPercentiles(load, step);
  return `${ms(p50)} / ${ms(p99)}`;
}

const p99 = (load: TaskLoadResult, step: string): number => stepPercentiles(load, step)[1];

/**
 * CPU per operation of every process, and each process's wait for a CPU, gateway and baseline;
 * `compare` fills the last column of the simulator's row (the table's gateway / baseline).
 */
export function cpuRows(
  what: string,
  gw: Measured,
  raw: Measured,
  compare: (gw: number, raw: number) => Cell = (g, r) => ratio(g / r),
): Cell[][] {
  return [
    [`CPU per ${what} µs: media node`, us(gw.cpu.node), '—', ''],
    [`CPU per ${what} µs: api`, us(gw.cpu.api), '—', ''],
    [`CPU per ${what} µs: redis`, us(gw.cpu.redis), '—', ''],
    [
      `CPU per ${what} µs: simulator`,
      us(gw.cpu.simulator),
      us(raw.cpu.simulator),
      compare(gw.cpu.simulator, raw.cpu.simulator),
    ],
    [`CPU per ${what} µs: load generator`, us(gw.cpu.generator), us(raw.cpu.generator), ''],
    [
      'wait for a CPU per wake-up µs: media node / api / redis',
      [gw.cpuWait.node, gw.cpuWait.api, gw.cpuWait.redis].map(us).join(' / '),
      '—',
      '',
    ],
    [
      'wait for a CPU per wake-up µs: simulator / load generator',
      `${us(gw.cpuWait.simulator)} / ${us(gw.cpuWait.generator)}`,
      `${us(raw.cpuWait.simulator)} / ${us(raw.cpuWait.generator)}`,
      '',
    ],
  ];
}

export function mediaNodeReport(options: BenchOptions, f: MediaNodeFigures): ScenarioResult {
  const failed = failedCounts(f);
  const sustained = f.ramp.steps.filter((s) => s.sustained).at(-1)?.sessions ?? 0;
  const heap = {
    node: perSession(f.ramp, (m) => m.node.heapUsed),
    simulator: perSession(f.ramp, (m) => m.simulator.heapUsed),
  };
  return {
    columns: ['measurement', 'gateway', 'simulator alone', 'gateway / simulator'],
    rows: [
      ...callRows(options.connections, f.calls, f.rawCalls, f.callHops),
      ...commandRows(options.connections, f.commands, f.rawCommands),
      ...sessionRows(options.sessions, f.ramp, sustained, heap),
      ['failed calls and commands', count(failed.gateway), count(failed.baseline), ''],
    ],
    checks: checks(options.sessions, failed, sustained),
    chart: chartBars(f, heap),
    notes: notes(f),
  };
}

interface Failed {
  readonly gateway: number;
  readonly baseline: number;
}

/** Heap per live session, in bytes: the media node's, and the simulator's per channel. */
interface HeapPerSession {
  readonly node: number;
  readonly simulator: number;
}

/** Calls and commands that failed, ramp included: any makes the figures invalid. */
function failedCounts(f: MediaNodeFigures): Failed {
  const failures = (a: Measured, b: CommandsMeasured, opening: Settled<unknown>): number =>
    a.load.failed + b.load.failed + b.probe.failed + opening.failed;
  return {
    gateway:
      failures(f.calls, f.commands, f.openFailures.gateway) +
      f.ramp.steps.reduce((n, s) => n + s.failedToOpen + s.probe.failed, 0),
    baseline: failures(f.rawCalls, f.rawCommands, f.openFailures.baseline),
  };
}

function callRows(
  connections: number,
  calls: Measured,
  rawCalls: Measured,
  hops: HopMarks,
): Cell[][] {
  return [
    [
      `inbound calls/s, ${connections} at once (placed, answered, hung up)`,
      perSec(calls.load.perSec),
      perSec(rawCalls.load.perSec),
      ratio(calls.load.perSec / rawCalls.load.perSec),
    ],
    [
      'placed → call.new (baseline: CHANNEL_PARK) p50 / p99 ms',
      pair(calls.load, 'new'),
      pair(rawCalls.load, 'new'),
      '',
    ],
    [
      'answer → call.answered p50 / p99 ms',
      pair(calls.load, 'answer'),
      pair(rawCalls.load, 'answer'),
      '',
    ],
    ...hopRows(hops, undefined, "at max: where answer's time goes"),
    [
      'hangup → call.hangup p50 / p99 ms',
      pair(calls.load, 'hangup'),
      pair(rawCalls.load, 'hangup'),
      '',
    ],
    ...cpuRows('call', calls, rawCalls),
  ];
}

function commandRows(
  connections: number,
  commands: CommandsMeasured,
  rawCommands: CommandsMeasured,
): Cell[][] {
  return [
    [
      `commands/s, ${connections} in flight (POST → command.result)`,
      perSec(commands.load.perSec),
      perSec(rawCommands.load.perSec),
      ratio(commands.load.perSec / rawCommands.load.perSec),
    ],
    [
      'at max: accepted (202 / command reply) p50 / p99 ms',
      pair(commands.load, 'accepted'),
      pair(rawCommands.load, 'accepted'),
      '',
    ],
    [
      'at max: executed p50 / p99 ms',
      pair(commands.load, 'executed'),
      pair(rawCommands.load, 'executed'),
      '',
    ],
    [
      `at ${PROBE_RATE} commands/s: executed p50 / p99 ms`,
      pair(commands.probe, 'executed'),
      pair(rawCommands.probe, 'executed'),
      '',
    ],
    ...hopRows(
      commands.hops,
      rawCommands.probe,
      `at ${PROBE_RATE} commands/s: where the time goes`,
    ),
    ...cpuRows('command', commands, rawCommands),
  ];
}

/** The ramp: sessions sustained, memory per session, and each step's latency and heap. */
function sessionRows(
  sessions: number,
  ramp: Ramp,
  sustained: number,
  heap: HeapPerSession,
): Cell[][] {
  const bytes = (pick: (m: MemoryPoint) => number): number => perSession(ramp, pick);
  return [
    [`live sessions sustained (ramp to ${count(sessions)})`, count(sustained), '—', ''],
    [
      'heap per live session KiB (baseline: simulator per channel)',
      kib(heap.node),
      kib(heap.simulator),
      '',
    ],
    [
      'RSS per live session KiB (baseline: simulator per channel)',
      kib(bytes((m) => m.node.rss)),
      kib(bytes((m) => m.simulator.rss)),
      '',
    ],
    ['redis memory per live session KiB', kib(bytes((m) => m.redis)), '—', ''],
    ...ramp.steps.map((s): Cell[] => [
      `at ${count(s.sessions)} live sessions: command p50 / p99 ms, node heap`,
      `${pair(s.probe, 'executed')}, ${mib(s.memory.node.heapUsed)}`,
      '',
      '',
    ]),
  ];
}

function checks(sessions: number, failed: Failed, sustained: number): Check[] {
  return [
    {
      target: 'every call and command completed (otherwise the figures are not valid)',
      actual: `${count(failed.gateway)} gateway, ${count(failed.baseline)} baseline failed`,
      pass: failed.gateway === 0 && failed.baseline === 0,
    },
    {
      target: `${count(sessions)} live sessions on one media node, every command executed, p99 < ${SUSTAINED_P99_MS} ms`,
      actual: `${count(sustained)} sustained`,
      pass: sustained === sessions,
    },
  ];
}

function chartBars(f: MediaNodeFigures, heap: HeapPerSession): ChartBar[] {
  const { calls, rawCalls, commands, rawCommands } = f;
  return [
    {
      label: 'inbound calls/s',
      unit: 'calls/s',
      value: calls.load.perSec,
      baseline: rawCalls.load.perSec,
    },
    {
      label: 'placed → call.new p99',
      unit: 'ms',
      value: p99(calls.load, 'new'),
      baseline: p99(rawCalls.load, 'new'),
    },
    {
      label: 'answer → call.answered p99',
      unit: 'ms',
      value: p99(calls.load, 'answer'),
      baseline: p99(rawCalls.load, 'answer'),
    },
    {
      label: 'commands/s (POST → command.result)',
      unit: 'commands/s',
      value: commands.load.perSec,
      baseline: rawCommands.load.perSec,
    },
    {
      label: `command executed p99 at ${PROBE_RATE}/s`,
      unit: 'ms',
      value: p99(commands.probe, 'executed'),
      baseline: p99(rawCommands.probe, 'executed'),
    },
    {
      label: 'heap per live session',
      unit: 'KiB',
      value: heap.node / 1024,
      baseline: heap.simulator / 1024,
    },
  ];
}

function notes(f: MediaNodeFigures): string[] {
  const failedNotes = [
    ...f.calls.load.errors,
    ...f.commands.load.errors,
    ...f.ramp.errors,
    ...f.openFailures.gateway.errors,
    ...f.rawCalls.load.errors,
    ...f.rawCommands.load.errors,
    ...f.openFailures.baseline.errors,
  ];
  return [
    `gateway: simulator → media node → Redis ${f.redisVersion} (AOF everysec) → api, each in a ` +
      `process of its own; calls are routed by DID, commands are \`answer\` on answered calls ` +
      `(deferred: confirmed by FreeSWITCH's EXECUTE_COMPLETE); events read from the Redis ` +
      `event stream (${count(f.eventsRead)} read), as the webhook dispatcher reads them`,
    `baseline: the same simulator driven over a bare event socket by the load generator ` +
      `(sendmsg execute answer, uuid_kill), with no media node, api or Redis: what a program ` +
      `talking to FreeSWITCH directly gets on this machine`,
    `commands spread over ${count(200)} live calls; latency at ${PROBE_RATE} commands/s is an ` +
      `open-loop paced load; the ramp runs first, on a fresh media node; memory is measured ` +
      `after a full GC in each process, per session = the slope of memory over the ramp's ` +
      `sustained steps (RSS moves in pages and arenas: only the heap figure is exact)`,
    `CPU per call or command: user + system time of each process during the maximum-throughput ` +
      `run, divided by what completed; it depends far less than rates on what else runs`,
    `wait for a CPU per wake-up: how long each process's event loop, woken (a message, a timer), ` +
      `waited on average for a core during the same run (Linux schedstat); every hop between ` +
      `processes pays it once, so it is the share of the hop rows that is the machine's`,
    ...(failedNotes.length > 0 ? [`first failures: ${failedNotes.slice(0, 3).join(' | ')}`] : []),
  ];
}
