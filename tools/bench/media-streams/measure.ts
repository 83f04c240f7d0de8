import { setTimeout as sleep } from 'node:timers/promises';
import type { JsonClient } from '../lib/http-json.js';
import { calmly, type HostRecord } from '../lib/rounds.js';
import { LatencySamples } from '../lib/stats.js';
import { inParallel } from '../media-node/flows.js';
import type { EchoApp, EchoConnection, Onset } from './echo-app.js';
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

/**
 * Frames more than `lateMs` behind their schedule: 20 ms a chunk from the best-placed frame of
 * the window (the earliest relative to its chunk number). `chunks[i]` arrived at `arrivals[i]`.
 */
export function lateFrames(
  chunks: readonly number[],
  arrivals: readonly number[],
  lateMs: number,
): number {
  let anchor = Infinity;
  for (let i = 0; i < chunks.length; i++) {
    anchor = Math.min(anchor, (arrivals[i] ?? 0) - (chunks[i] ?? 0) * 20);
  }
  let late = 0;
  for (let i = 0; i < chunks.length; i++) {
    if ((arrivals[i] ?? 0) - (chunks[i] ?? 0) * 20 - anchor > lateMs) late++;
  }
  return late;
}

/** Frames and late frames at the app over a window of `seconds`. */
export async function lateWindow(rig: Rig, live: Live, seconds: number) {
  const connections = connectionsOf(rig, live);
  for (const c of connections) c.resetWindow();
  await sleep(seconds * 1000);
  let frames = 0;
  let late = 0;
  for (const c of connections) {
    frames += c.chunks.length;
    late += lateFrames(c.chunks, c.arrivals, LATE_MS);
  }
  return { frames, late, expected: Math.floor((live.calls.length * seconds * 1000) / 20) };
}

/** One `POST /sim/calls/{uuid}/say` of a tone: sent and answered (generator ms), `at_ms`. */
export interface Say {
  readonly sentAt: number;
  readonly answeredAt: number;
  /** The call's time (ms since it began) at which the simulator started the tone. */
  readonly atMs: number;
}

/**
 * One tone's latency each way, or undefined when it is not found: its onset at the app (the
 * first after the say was sent) or its echo in what the call heard (`heard`, 8 kHz samples from
 * the call's start; the first loud sample after 20 ms of quiet, from 40 ms before the echo's
 * send on). The call's clock is placed on the generator's at the middle of the say's round trip.
 */
export function toneSample(
  say: Say,
  onsets: readonly Onset[],
  heard: Int16Array,
): { readonly toApp: number; readonly toCaller: number } | undefined {
  const zero = (say.sentAt + say.answeredAt) / 2 - say.atMs;
  const onset = onsets.find((o) => o.arrivedAt > say.sentAt);
  if (!onset) return undefined;
  const h = firstLoud(heard, (onset.echoedAt - zero - 40) * 8);
  if (h === undefined) return undefined;
  return {
    // From the end of the tone's 20 ms frame slot, when the simulator sends the frame.
    toApp: onset.arrivedAt - (zero + (Math.floor(say.atMs / 20) + 1) * 20),
    // To the start of the slot heard.wav has it in (the tone starts at_ms % 20 into its frame).
    toCaller: zero + h / 8 - (say.atMs % 20) - onset.echoedAt,
  };
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
      const sample = toneSample(say, onsets, heard);
      if (!sample) {
        unmatched++;
        continue;
      }
      toApp.add(sample.toApp);
      toCaller.add(sample.toCaller);
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

/** What one measured window gives: latency both ways, late frames, the relay's CPU. */
export interface StreamWindow {
  readonly toApp: LatencySamples;
  readonly toCaller: LatencySamples;
  readonly unmatched: number;
  readonly late: number;
  readonly frames: number;
  readonly cpuUsPerStreamSec: number;
}

/**
 * `seconds` of the `live` streams, measured on a calm host (again while the host took more than
 * a latency measurement tolerates, rounds.ts): tones each way, late frames, the relay's CPU per
 * stream-second.
 */
export async function streamWindow(
  rig: Rig,
  side: StreamSide,
  live: Live,
  seconds: number,
): Promise<HostRecord & { readonly result: StreamWindow }> {
  return calmly(
    async () => {
      const cpu0 = side.relay.cpuMs() ?? Number.NaN;
      const t0 = performance.now();
      const late = lateWindow(rig, live, seconds);
      const tones = await toneLatency(rig, live, seconds);
      const w = await late;
      const cpuMs = (side.relay.cpuMs() ?? Number.NaN) - cpu0;
      const streamSec = (live.calls.length * (performance.now() - t0)) / 1000;
      return {
        ...tones,
        late: w.late,
        frames: w.frames,
        cpuUsPerStreamSec: (cpuMs * 1000) / streamSec,
      };
    },
    { sensitivity: 'latency' },
  );
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
 * that did not come up (twice in a row), or `budgetSec` of steps are spent (waits for a calm host
 * not counted). Each step's window is measured on a calm host, as `streamWindow`'s.
 */
export async function stepUp(
  rig: Rig,
  side: StreamSide,
  windowSec: number,
  budgetSec: number,
  log: (line: string) => void,
): Promise<{ readonly steps: Step[]; readonly hosts: HostRecord[] }> {
  const steps: Step[] = [];
  const hosts: HostRecord[] = [];
  let spentMs = 0;
  const step = async (n: number): Promise<Step> => {
    const measured = await oneStep(rig, side, n, windowSec);
    spentMs += measured.spentMs;
    hosts.push(measured.host);
    return measured.step;
  };
  for (let n = 50; spentMs < budgetSec * 1000; n *= 2) {
    // A failed step is tried once more: one host pause of 40 ms makes every stream late.
    let s = await step(n);
    log(`  ${n} streams: ${s.late} late of ${s.frames} frames, ${s.failed} not up`);
    if (!s.ok && spentMs < budgetSec * 1000) {
      s = await step(n);
      log(`  ${n} streams again: ${s.late} late of ${s.frames}, ${s.failed} not up`);
    }
    steps.push(s);
    if (!s.ok) break;
  }
  return { steps, hosts };
}

async function oneStep(rig: Rig, side: StreamSide, n: number, windowSec: number) {
  let spentMs = 0;
  const timed = async <T>(work: () => Promise<T>): Promise<T> => {
    const t0 = performance.now();
    try {
      return await work();
    } finally {
      spentMs += performance.now() - t0;
    }
  };
  const live = await timed(async () => {
    const opened = await openStreams(rig, side, n);
    await sleep(1000);
    return opened;
  });
  const host = await calmly(() => timed(() => lateWindow(rig, live, windowSec)), {
    sensitivity: 'latency',
  });
  await timed(() => closeStreams(rig, live));
  const w = host.result;
  const ok = live.failed === 0 && w.late === 0 && w.frames >= w.expected * 0.95;
  return { step: { streams: n, ok, ...w, failed: live.failed }, host, spentMs };
}
