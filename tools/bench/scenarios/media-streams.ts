import { ms, msUp, ratio } from '../lib/format.js';
import { abbaOrder, hostNote, type HostRecord } from '../lib/rounds.js';
import type { Scenario } from '../lib/scenario.js';
import { median } from '../lib/stats.js';
import { EchoApp } from '../media-streams/echo-app.js';
import {
  closeStreams,
  LATE_MS,
  openStreams,
  stepUp,
  streamWindow,
  type Rig,
  type Step,
} from '../media-streams/measure.js';
import { startSide, type SideName, type StreamSide } from '../media-streams/sides.js';
import { MediaStack } from '../media-node/stack.js';

/** Seconds each side may spend stepping up its streams (a step's window is at most 5 s). */
const STEP_BUDGET_SEC = 60;
const SIDES: readonly [SideName, SideName] = ['bare', 'gateway'];

/** Everything measured of one side in one round. */
interface SideFigures {
  readonly toAppMs: [number, number];
  readonly toCallerMs: [number, number];
  readonly samples: number;
  readonly unmatched: number;
  readonly late: string;
  readonly opened: number;
  readonly cpuUsPerStreamSec: number;
  readonly rssKiBPerStream: number;
  readonly heapKiBPerStream: number;
  readonly steps: Step[];
}

async function measureSide(
  rig: Rig,
  side: StreamSide,
  streams: number,
  seconds: number,
  log: (line: string) => void,
): Promise<{ figures: SideFigures; hosts: HostRecord[] }> {
  // A warm-up round first (JIT, pools, the allocator's first pages): not recorded.
  await closeStreams(rig, await openStreams(rig, side, streams));
  const before = await side.relay.memory();
  const live = await openStreams(rig, side, streams);
  const after = await side.relay.memory();
  if (live.failed > 0) log(`${live.failed} streams not up: ${live.errors.join('; ')}`);
  const window = await streamWindow(rig, side, live, seconds);
  await closeStreams(rig, live);
  log(`stepping up streams (at most ${STEP_BUDGET_SEC} s)`);
  const stepped = await stepUp(rig, side, Math.min(seconds, 5), STEP_BUDGET_SEC, log);
  const w = window.result;
  const perStream = (bytes: number): number => bytes / 1024 / Math.max(1, live.calls.length);
  return {
    figures: {
      toAppMs: w.toApp.percentiles(0.5, 0.99) as [number, number],
      toCallerMs: w.toCaller.percentiles(0.5, 0.99) as [number, number],
      samples: w.toApp.count,
      unmatched: w.unmatched,
      late: `${w.late} of ${w.frames}`,
      opened: live.calls.length,
      cpuUsPerStreamSec: w.cpuUsPerStreamSec,
      rssKiBPerStream: perStream(after.rss - before.rss),
      heapKiBPerStream: perStream(
        after.heapUsed + after.external - before.heapUsed - before.external,
      ),
      steps: stepped.steps,
    },
    hosts: [window, ...stepped.hosts],
  };
}

const maxStreams = (steps: readonly Step[]): number =>
  Math.max(0, ...steps.filter((s) => s.ok).map((s) => s.streams));

export const mediaStreams: Scenario = {
  name: 'media-streams',
  title:
    'Bidirectional media streams through a media node to an echo app: added latency both ways, ' +
    'streams at real-time pace, CPU and memory per stream; baseline: a bare relay between ' +
    'mod_audio_stream and the same app',

  async run(options, log) {
    const n = options.streams;
    const seconds = Math.max(1, Math.round(options.durationSec));
    log('starting redis-server, the simulator and the echo app');
    const stack = await MediaStack.start(options);
    const echo = await EchoApp.start();
    const rig: Rig = { control: stack.control, simOrigin: stack.sim.origin, echo };
    const figures: Record<SideName, SideFigures[]> = { gateway: [], bare: [] };
    const hosts: HostRecord[] = [];
    try {
      // Sides alternate round by round (ABBA), each started for its turn and stopped after it.
      for (let round = 0; round < options.rounds; round++) {
        for (const name of abbaOrder(round, SIDES)) {
          const label = name === 'bare' ? 'the bare relay' : 'the media node';
          log(`round ${round + 1}: ${n} streams through ${label}, ${seconds} s`);
          const side = await startSide(name, stack, echo, options.cpuProfileDir);
          try {
            const measured = await measureSide(rig, side, n, seconds, log);
            figures[name].push(measured.figures);
            hosts.push(...measured.hosts);
          } finally {
            await side.stop();
          }
        }
      }
      return report(n, figures, hosts);
    } finally {
      await echo.close();
      await stack.stop();
    }
  },
};

function report(n: number, runs: Record<SideName, SideFigures[]>, hosts: HostRecord[]) {
  const rounds = runs.gateway.map((gw, i) => ({ gw, bare: runs.bare[i] ?? gw }));
  /** The median round's figure of each side, and the median of the rounds' differences. */
  const row = (label: string, f: (s: SideFigures) => number, fmt = ms) => [
    label,
    fmt(median(runs.gateway.map(f))),
    fmt(median(runs.bare.map(f))),
    fmt(median(rounds.map((r) => f(r.gw) - f(r.bare)))),
  ];
  const fixed = (d: number) => (x: number) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  // Each round compares its two sides, measured minutes apart at most; the checks take the
  // median round.
  const worse = (r: { gw: SideFigures; bare: SideFigures }, q: 0 | 1): number =>
    Math.max(r.gw.toAppMs[q] - r.bare.toAppMs[q], r.gw.toCallerMs[q] - r.bare.toCallerMs[q]);
  const dP50 = median(rounds.map((r) => worse(r, 0)));
  const dP99 = median(rounds.map((r) => worse(r, 1)));
  const streamRatio = median(
    rounds.map((r) => maxStreams(r.gw.steps) / Math.max(1, maxStreams(r.bare.steps))),
  );
  const [gwMax, bareMax] = [runs.gateway, runs.bare].map((s) =>
    median(s.map((f) => maxStreams(f.steps))),
  ) as [number, number];
  const allUp = rounds.every((r) => r.gw.opened === n && r.bare.opened === n);
  const steps = (s: SideFigures) =>
    s.steps.map((x) => `${x.streams}: ${x.ok ? 'ok' : `${x.late} late, ${x.failed} not up`}`);
  const p = (x: [number, number]) => `${ms(x[0])}/${ms(x[1])}`;
  const roundNote = (r: { gw: SideFigures; bare: SideFigures }, i: number) =>
    `round ${i + 1}: caller → app ${p(r.gw.toAppMs)} vs ${p(r.bare.toAppMs)} ms, app → caller ` +
    `${p(r.gw.toCallerMs)} vs ${p(r.bare.toCallerMs)} ms, late frames ${r.gw.late} vs ` +
    `${r.bare.late}, samples ${r.gw.samples} and ${r.bare.samples} (${r.gw.unmatched} and ` +
    `${r.bare.unmatched} not found), step-up gateway ${steps(r.gw).join(', ')}; bare ` +
    `${steps(r.bare).join(', ')}`;
  return {
    columns: ['measurement (median round)', 'gateway', 'bare relay', 'gateway − bare'],
    rows: [
      row(`caller → app p50 ms (${n} streams)`, (s) => s.toAppMs[0]),
      row(`caller → app p99 ms`, (s) => s.toAppMs[1]),
      row(`app → caller p50 ms`, (s) => s.toCallerMs[0]),
      row(`app → caller p99 ms`, (s) => s.toCallerMs[1]),
      row('most streams at real-time pace', (s) => maxStreams(s.steps), fixed(0)),
      row('relay CPU per stream-second µs', (s) => s.cpuUsPerStreamSec, fixed(0)),
      row('relay RSS per stream KiB', (s) => s.rssKiBPerStream, fixed(1)),
      row('relay heap + external per stream KiB', (s) => s.heapKiBPerStream, fixed(1)),
    ],
    checks: [
      {
        target: 'p50 within 5 ms of the bare relay (worse direction, median round)',
        actual: `+${msUp(dP50)} ms`,
        pass: dP50 <= 5,
      },
      {
        target: 'p99 within 20 ms of the bare relay (worse direction, median round)',
        actual: `+${msUp(dP99)} ms`,
        pass: dP99 <= 20,
      },
      {
        target: 'most streams ≥ 0.7 × the bare relay’s (median round)',
        actual: `${gwMax} / ${bareMax}, rounds' median ${ratio(streamRatio)}`,
        pass: bareMax > 0 && streamRatio >= 0.7,
      },
      {
        target: `every stream came up (${n} each side, every round)`,
        actual: rounds.map((r) => `${r.gw.opened} / ${r.bare.opened}`).join(', '),
        pass: allUp,
      },
    ],
    notes: [
      `${rounds.length} rounds, the sides alternately (ABBA), each side's processes started for ` +
        'its turn; the table gives the median round of each figure and the median of the ' +
        "rounds' differences, and the checks the median round.",
      ...rounds.map(roundNote),
      'Latency from one 100 ms 1 kHz tone per call per second. Caller → app counts from the end ' +
        'of the tone’s 20 ms frame slot on the simulator’s clock (placed on the generator’s by ' +
        'each say’s reply, ±half its round trip); app → caller from the echo’s send to the slot ' +
        'where heard.wav has it. Both include the simulator’s own tick, the same on both sides.',
      `Late frames: more than ${LATE_MS} ms behind a 20 ms schedule at the app, in the ` +
        `${n}-stream window. Step-up windows ≤ 5 s each. RSS moves with the allocator (it may ` +
        'even shrink after the GC); heap + external is the steadier figure. The echo app and the ' +
        'simulator share the machine’s cores with the relay: the ceiling is the machine’s as ' +
        'much as the relay’s.',
      hostNote(hosts),
    ],
    chart: [
      {
        label: 'caller → app p50',
        unit: 'ms',
        value: median(runs.gateway.map((s) => s.toAppMs[0])),
        baseline: median(runs.bare.map((s) => s.toAppMs[0])),
      },
      {
        label: 'app → caller p50',
        unit: 'ms',
        value: median(runs.gateway.map((s) => s.toCallerMs[0])),
        baseline: median(runs.bare.map((s) => s.toCallerMs[0])),
      },
      { label: 'streams at real time', unit: 'streams', value: gwMax, baseline: bareMax },
    ],
  };
}
