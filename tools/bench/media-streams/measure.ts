import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonClient } from '../lib/http-json.js';
import { LatencySamples } from '../lib/stats.js';
import { inParallel } from '../media-node/flows.js';
import type { EchoApp, EchoConnection } from './echo-app.js';
import type { StreamCall, StreamSide } from './sides.js';

/** Frames this far behind their 20 ms schedule at the app are late (a jitter buffer's depth). */
export const LATE_MS = 40;
const TONE = { hz: 1000, ms: 100 };
/** Streams set up at once. */
const OPENING = 50;

/** What the figures are computed from: the simulator's control API and the echo app. */
export interface Rig {
  readonly control: JsonClient;
  readonly simOrigin: string;
  readonly echo: EchoApp;
}

export interface Live {
  readonly calls: StreamCall[];
  readonly failed: number;
  readonly errors: string[];
}

/** Opens `n` streams and waits until each one's audio reaches the app. */
export async function openStreams(rig: Rig, side: StreamSide, n: number): Promise<Live> {
  const opened = await inParallel(Array.from({ length: n }), OPENING, async () => {
    const call = await side.open();
    for (let waited = 0; !(rig.echo.connections.get(call.key)?.frames ?? 0); waited += 20) {
      if (waited > 5000) throw new Error(`no audio at the app for ${call.key}`);
      await sleep(20);
    }
    return call;
  });
  return { calls: opened.ok, failed: opened.failed, errors: opened.errors };
}

export async function closeStreams(rig: Rig, live: Live): Promise<void> {
  await inParallel(live.calls, OPENING, (call) => call.close());
  for (const call of live.calls) rig.echo.connections.delete(call.key);
  await sleep(500);
}

const connectionsOf = (rig: Rig, live: Live): EchoConnection[] =>
  live.calls.map((c) => rig.echo.connections.get(c.key)).filter((c) => c !== undefined);

/** Frames and late frames at the app over a window of `seconds`. */
export async function lateWindow(rig: Rig, live: Live, seconds: number) {
  const connections = connectionsOf(rig, live);
  for (const c of connections) c.resetWindow();
  await sleep(seconds * 1000);
  let frames = 0;
  let late = 0;
  for (const c of connections) {
    frames += c.chunks.length;
    late += c.lateFrames(LATE_MS);
  }
  return { frames, late, expected: Math.floor((live.calls.length * seconds * 1000) / 20) };
}

interface Say {
  readonly sentAt: number;
  readonly answeredAt: number;
  readonly atMs: number;
}

/**
 * Caller → app and app → caller latency: every call's caller says a tone burst once a second
 * (calls staggered over the second) for `seconds`. The call's clock is placed on the
 * generator's by each say's reply (`at_ms` is the call's time when the simulator took it).
 * Caller → app: the tone's first frame at the app − the end of its 20 ms frame slot (when the
 * simulator sends it). App → caller: the slot where heard.wav has the echo − the echo's send.
 */
export async function toneLatency(rig: Rig, live: Live, seconds: number) {
  const says = new Map<string, Say[]>();
  const start = performance.now();
  await Promise.all(
    live.calls.map(async (call, i) => {
      const list: Say[] = [];
      says.set(call.key, list);
      await sleep((i / live.calls.length) * 1000);
      for (let k = 0; k < seconds; k++) {
        const due = start + (i / live.calls.length) * 1000 + k * 1000;
        await sleep(Math.max(0, due - performance.now()));
        const sentAt = performance.now();
        const said = await rig.control.expect(
          202,
          'POST',
          `/sim/calls/${call.uuid}/say`,
          {},
          {
            tone: TONE,
          },
        );
        list.push({ sentAt, answeredAt: performance.now(), atMs: Number(said.at_ms) });
      }
    }),
  );
  await sleep(500);
  const toApp = new LatencySamples(live.calls.length * seconds);
  const toCaller = new LatencySamples(live.calls.length * seconds);
  let unmatched = 0;
  await inParallel(live.calls, 10, async (call) => {
    const heard = await heardSamples(rig.simOrigin, call.uuid);
    const onsets = rig.echo.connections.get(call.key)?.onsets ?? [];
    for (const say of says.get(call.key) ?? []) {
      const zero = (say.sentAt + say.answeredAt) / 2 - say.atMs;
      const onset = onsets.find((o) => o.arrivedAt > say.sentAt);
      const h = onset && firstLoud(heard, (onset.echoedAt - zero - 40) * 8);
      if (!onset || h === undefined) {
        unmatched++;
        continue;
      }
      toApp.add(onset.arrivedAt - (zero + (Math.floor(say.atMs / 20) + 1) * 20));
      toCaller.add(zero + h / 8 - (say.atMs % 20) - onset.echoedAt);
    }
  });
  return { toApp, toCaller, unmatched };
}

async function heardSamples(origin: string, uuid: string): Promise<Int16Array> {
  const res = await fetch(`${origin}/sim/calls/${uuid}/heard.wav`);
  const wav = Buffer.from(await res.arrayBuffer());
  const data = wav.indexOf('data') + 8;
  if (Number(res.headers.get('x-heard-from-ms') ?? 0) !== 0) throw new Error('heard.wav cut');
  return new Int16Array(wav.buffer.slice(wav.byteOffset + data, wav.byteOffset + wav.length));
}

/** The first loud sample at or after `from` that follows at least 20 ms of quiet. */
function firstLoud(pcm: Int16Array, from: number): number | undefined {
  let quiet = 0;
  for (let i = Math.max(0, Math.floor(from)); i < pcm.length; i++) {
    if (Math.abs(pcm[i]!) > 1000) {
      if (quiet >= 160) return i;
      quiet = 0;
    } else quiet++;
  }
  return undefined;
}

export interface Step {
  readonly streams: number;
  readonly ok: boolean;
  readonly late: number;
  readonly frames: number;
  readonly expected: number;
  readonly failed: number;
}

/**
 * Streams at real-time pace: 50, 100, 200, … until a step has a late or missing frame, a stream
 * that did not come up (twice in a row), or `budgetSec` is spent.
 */
export async function stepUp(
  rig: Rig,
  side: StreamSide,
  windowSec: number,
  budgetSec: number,
  log: (line: string) => void,
): Promise<Step[]> {
  const steps: Step[] = [];
  const until = performance.now() + budgetSec * 1000;
  for (let n = 50; performance.now() < until; n *= 2) {
    // A failed step is tried once more: one host pause of 40 ms makes every stream late.
    let step = await oneStep(rig, side, n, windowSec);
    log(`  ${n} streams: ${step.late} late of ${step.frames} frames, ${step.failed} not up`);
    if (!step.ok && performance.now() < until) {
      step = await oneStep(rig, side, n, windowSec);
      log(`  ${n} streams again: ${step.late} late of ${step.frames}, ${step.failed} not up`);
    }
    steps.push(step);
    if (!step.ok) break;
  }
  return steps;
}

async function oneStep(rig: Rig, side: StreamSide, n: number, windowSec: number): Promise<Step> {
  const live = await openStreams(rig, side, n);
  await sleep(1000);
  const w = await lateWindow(rig, live, windowSec);
  await closeStreams(rig, live);
  const ok = live.failed === 0 && w.late === 0 && w.frames >= w.expected * 0.95;
  return { streams: n, ok, ...w, failed: live.failed };
}
