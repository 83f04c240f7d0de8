import { EslClient } from '@voicegw/simulator/client';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { ms, msUp, ratio } from '../lib/format.js';
import type { Scenario } from '../lib/scenario.js';
import { EchoApp } from '../media-streams/echo-app.js';
import {
  closeStreams,
  lateWindow,
  LATE_MS,
  openStreams,
  stepUp,
  toneLatency,
  type Rig,
  type Step,
} from '../media-streams/measure.js';
import { bareSide, gatewaySide, type StreamSide } from '../media-streams/sides.js';
import { MediaStack } from '../media-node/stack.js';

/** Seconds each side may spend stepping up its streams (a step's window is at most 5 s). */
const STEP_BUDGET_SEC = 60;

/** Everything measured of one side. */
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
): Promise<SideFigures> {
  // A warm-up round first (JIT, pools, the allocator's first pages): not recorded.
  await closeStreams(rig, await openStreams(rig, side, streams));
  const before = await side.relay.memory();
  const live = await openStreams(rig, side, streams);
  const after = await side.relay.memory();
  if (live.failed > 0) log(`${live.failed} streams not up: ${live.errors.join('; ')}`);
  const cpu0 = side.relay.cpuMs() ?? Number.NaN;
  const t0 = performance.now();
  const late = lateWindow(rig, live, seconds);
  const tones = await toneLatency(rig, live, seconds);
  const w = await late;
  const cpu = (side.relay.cpuMs() ?? Number.NaN) - cpu0;
  const streamSec = (live.calls.length * (performance.now() - t0)) / 1000;
  await closeStreams(rig, live);
  log(`stepping up streams (at most ${STEP_BUDGET_SEC} s)`);
  const steps = await stepUp(rig, side, Math.min(seconds, 5), STEP_BUDGET_SEC, log);
  return {
    toAppMs: tones.toApp.percentiles(0.5, 0.99) as [number, number],
    toCallerMs: tones.toCaller.percentiles(0.5, 0.99) as [number, number],
    samples: tones.toApp.count,
    unmatched: tones.unmatched,
    late: `${w.late} of ${w.frames}`,
    opened: live.calls.length,
    cpuUsPerStreamSec: (cpu * 1000) / streamSec,
    rssKiBPerStream: (after.rss - before.rss) / 1024 / Math.max(1, live.calls.length),
    heapKiBPerStream:
      (after.heapUsed + after.external - before.heapUsed - before.external) /
      1024 /
      Math.max(1, live.calls.length),
    steps,
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
    let relay: ChildServer | undefined;
    try {
      // Baseline first: once a media node is connected it takes every parked call.
      relay = await startChildServer({
        file: 'bare-relay.ts',
        env: { BENCH_ESL_PORT: String(stack.eslPort), BENCH_ESL_PASSWORD: stack.eslPassword },
        cpuProfileDir: options.cpuProfileDir,
        execArgv: ['--expose-gc'],
      });
      const esl = await EslClient.connect(stack.eslPort, {
        password: stack.eslPassword,
        events: ['CHANNEL_PARK', 'CHANNEL_ANSWER', 'CHANNEL_HANGUP_COMPLETE'],
        record: false,
      });
      log(`baseline: ${n} streams through the bare relay, ${seconds} s`);
      const bare = await measureSide(
        rig,
        bareSide(relay, esl, stack.control, echo),
        n,
        seconds,
        log,
      );
      await esl.api('hupall NORMAL_CLEARING');
      esl.close();
      await relay.stop();
      relay = undefined;

      log('starting the media node and the api');
      const gw = await stack.startGateway(20, 2000, { BENCH_ALLOW_LOCALHOST_WEBHOOKS: 'true' });
      log(`gateway: ${n} streams through the media node, ${seconds} s`);
      const gateway = await measureSide(rig, gatewaySide(gw, stack.control, echo), n, seconds, log);
      return report(n, gateway, bare);
    } finally {
      await relay?.stop();
      await echo.close();
      await stack.stop();
    }
  },
};

function report(n: number, gw: SideFigures, bare: SideFigures) {
  const row = (label: string, f: (s: SideFigures) => number, fmt = ms) => [
    label,
    fmt(f(gw)),
    fmt(f(bare)),
    fmt(f(gw) - f(bare)),
  ];
  const [gwMax, bareMax] = [maxStreams(gw.steps), maxStreams(bare.steps)];
  const fixed = (d: number) => (x: number) => (Number.isFinite(x) ? x.toFixed(d) : 'n/a');
  const dP50 = Math.max(gw.toAppMs[0] - bare.toAppMs[0], gw.toCallerMs[0] - bare.toCallerMs[0]);
  const dP99 = Math.max(gw.toAppMs[1] - bare.toAppMs[1], gw.toCallerMs[1] - bare.toCallerMs[1]);
  const steps = (s: SideFigures) =>
    s.steps.map((x) => `${x.streams}: ${x.ok ? 'ok' : `${x.late} late, ${x.failed} not up`}`);
  return {
    columns: ['measurement', 'gateway', 'bare relay', 'gateway − bare'],
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
        target: 'p50 within 5 ms of the bare relay (worse direction)',
        actual: `+${msUp(dP50)} ms`,
        pass: dP50 <= 5,
      },
      {
        target: 'p99 within 20 ms of the bare relay (worse direction)',
        actual: `+${msUp(dP99)} ms`,
        pass: dP99 <= 20,
      },
      {
        target: 'most streams ≥ 0.7 × the bare relay’s',
        actual: `${gwMax} / ${bareMax} = ${ratio(gwMax / bareMax)}`,
        pass: bareMax > 0 && gwMax >= 0.7 * bareMax,
      },
      {
        target: `every stream came up (${n} each side)`,
        actual: `${gw.opened} / ${bare.opened}`,
        pass: gw.opened === n && bare.opened === n,
      },
    ],
    notes: [
      `Latency from one 100 ms 1 kHz tone per call per second: ${gw.samples} gateway and ` +
        `${bare.samples} bare samples (${gw.unmatched} and ${bare.unmatched} not found). ` +
        'Caller → app counts from the end of the tone’s 20 ms frame slot on the simulator’s ' +
        'clock (placed on the generator’s by each say’s reply, ±half its round trip); app → ' +
        'caller from the echo’s send to the slot where heard.wav has it. Both include the ' +
        'simulator’s own tick, the same on both sides.',
      `Late frames (> ${LATE_MS} ms behind a 20 ms schedule at the app) during the ${n}-stream ` +
        `window: gateway ${gw.late}, bare ${bare.late}.`,
      `Step-up (window ≤ 5 s each): gateway ${steps(gw).join(', ')}; bare ` +
        `${steps(bare).join(', ')}. RSS moves with the allocator (it may even shrink after the ` +
        'GC); heap + external is the steadier figure. The echo app and the simulator share ' +
        'the machine’s 2 cores with the relay: the ceiling is the machine’s as much as the relay’s.',
    ],
    chart: [
      { label: 'caller → app p50', unit: 'ms', value: gw.toAppMs[0], baseline: bare.toAppMs[0] },
      {
        label: 'app → caller p50',
        unit: 'ms',
        value: gw.toCallerMs[0],
        baseline: bare.toCallerMs[0],
      },
      { label: 'streams at real time', unit: 'streams', value: gwMax, baseline: bareMax },
    ],
  };
}
