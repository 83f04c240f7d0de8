import { count, ms, perSec, ratio, us } from '../lib/format.js';
import type { Cell, ScenarioResult } from '../lib/scenario.js';
import { stepPercentiles } from '../lib/task-load.js';
import type { Settled } from './flows.js';
import type { Measured } from './measure.js';

const failures = (...lists: (readonly string[])[]): string[] => {
  const all = lists.flat();
  return all.length > 0 ? [`first failures: ${all.slice(0, 3).join(' | ')}`] : [];
};

export interface RoomFigures {
  readonly rooms: Measured;
  readonly raw: Measured;
  readonly members: number;
  readonly atOnce: number;
  /** Rooms per second the teams allow under the 2 s join cooldown. */
  readonly cooldownCap: number;
  readonly eventsRead: number;
  /** Calls that did not come up while the teams were opened. */
  readonly openFailures: {
    readonly gateway: Settled<unknown>;
    readonly baseline: Settled<unknown>;
  };
}

export function roomsReport(f: RoomFigures): ScenarioResult {
  const { rooms, raw } = f;
  const pair = (m: Measured, step: string): string => {
    const [p50, p99] = stepPercentiles(m.load, step);
    return Number.isNaN(p50) ? '—' : `${ms(p50)} / ${ms(p99)}`;
  };
  const p99 = (m: Measured, step: string): number => stepPercentiles(m.load, step)[1];
  const gwFailed = rooms.load.failed + f.openFailures.gateway.failed;
  const rawFailed = raw.load.failed + f.openFailures.baseline.failed;
  const rows: Cell[][] = [
    [
      `rooms/s, ${f.atOnce} at once (${f.members} members each)`,
      perSec(rooms.load.perSec),
      perSec(raw.load.perSec),
      ratio(rooms.load.perSec / raw.load.perSec),
    ],
    ['create (201) p50 / p99 ms', pair(rooms, 'create'), '—', ''],
    ['join → every member confirmed p50 / p99 ms', pair(rooms, 'join'), pair(raw, 'join'), ''],
    ['play (202 / api reply) p50 / p99 ms', pair(rooms, 'play'), pair(raw, 'play'), ''],
    ['delete → every member left p50 / p99 ms', pair(rooms, 'delete'), pair(raw, 'delete'), ''],
    ['whole room p50 / p99 ms', pair(rooms, 'cycle'), pair(raw, 'cycle'), ''],
    ['CPU per room µs: media node', us(rooms.cpu.node), '—', ''],
    ['CPU per room µs: api', us(rooms.cpu.api), '—', ''],
    ['CPU per room µs: redis', us(rooms.cpu.redis), '—', ''],
    [
      'CPU per room µs: simulator',
      us(rooms.cpu.simulator),
      us(raw.cpu.simulator),
      ratio(rooms.cpu.simulator / raw.cpu.simulator),
    ],
    ['failed rooms (and calls that did not come up)', count(gwFailed), count(rawFailed), ''],
  ];
  return {
    columns: ['measurement', 'gateway', 'simulator alone', 'gateway / simulator'],
    rows,
    checks: [
      {
        target: 'every call came up and every room completed (otherwise the figures are not valid)',
        actual: `${count(gwFailed)} gateway, ${count(rawFailed)} baseline failed`,
        pass: gwFailed === 0 && rawFailed === 0,
      },
    ],
    chart: [
      { label: 'rooms/s', unit: 'rooms/s', value: rooms.load.perSec, baseline: raw.load.perSec },
      {
        label: 'join → confirmed p99',
        unit: 'ms',
        value: p99(rooms, 'join'),
        baseline: p99(raw, 'join'),
      },
      {
        label: 'delete → members left p99',
        unit: 'ms',
        value: p99(rooms, 'delete'),
        baseline: p99(raw, 'delete'),
      },
    ],
    notes: [
      `gateway: POST /api/v1/conferences, conference/join per member (awaiting each ` +
        `conference.member.joined on the event stream), POST …/play with a 1 s prompt served ` +
        `over HTTP (fetched once, then from the node's cache), DELETE (awaiting every ` +
        `conference.member.left and conference.destroyed); ${count(f.eventsRead)} events read`,
      `baseline: \`conference <room>@default+flags{mute}\` per member (until add-member), ` +
        `\`conference <room> play <file>\`, \`conference <room> kick all\` (until del-member and ` +
        `conference-destroy), over a bare event socket with no api, Redis or media node`,
      `rooms take teams of live calls in turn; through the api a call may join again 2 s after ` +
        `its last join (the contract's conference cooldown; FreeSWITCH has none, so the ` +
        `baseline's teams do not rest), which caps the gateway at ${perSec(f.cooldownCap)} ` +
        `rooms/s${rooms.load.perSec > f.cooldownCap * 0.9 ? ' — reached: the gateway figure is a lower bound' : ''}`,
      ...failures(rooms.load.errors, f.openFailures.gateway.errors, raw.load.errors),
    ],
  };
}
