// Replays a recorded scenario against the simulator over the event socket: the same commands at
// the same moments (the recording's timing is the scenario: "pause, wait 1.5 s, pause again"),
// then reads back what the simulator answered and fired, normalised like the fixtures.
import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import {
  KEY_HEADERS,
  SKIPPED_EVENTS,
  normalizeValue,
  type Fixture,
  type Step,
} from './fixtures/trace-fixture.js';
import type { EslClient, Ev } from './helpers.js';

export function loadFixture<F extends Fixture = Fixture>(name: string, dir = 'traces'): F {
  const path = join(import.meta.dirname, 'fixtures', dir, `${name}.json`);
  return JSON.parse(readFileSync(path, 'utf8')) as F;
}

/** A URL whose port refuses connections, like the recorder's 127.0.0.1:8098. */
export async function closedUrl(): Promise<string> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const port = (srv.address() as AddressInfo).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return `http://127.0.0.1:${port}`;
}

export interface ReplayResult {
  readonly replies: Array<{ step: Step; reply: string; jobResult?: string }>;
  readonly normalize: (v: string) => string;
}

/** Where and how recorded steps are replayed. */
export interface ReplayPlan {
  /** The event-socket client of each instance (1: the first; a step's `node` picks one). */
  readonly clients: Readonly<Record<number, EslClient>>;
  /** A recorded text as the simulator must be sent it (its ports, paths and uuids). */
  readonly substitute: (s: string) => Promise<string>;
  /** Takes a step the simulator plays another way (the network hanging up); its reply. */
  readonly divert?: (step: Step, line: string) => Promise<string | undefined>;
}

export async function replay(
  fixture: Fixture,
  client: EslClient,
  mediaBase: string,
): Promise<ReplayResult> {
  const closed = await closedUrl();
  const recDir = mkdtempSync(join(tmpdir(), 'sim-rec-'));
  // Trace e records into `notadir/x.wav` where notadir is a regular file: FreeSWITCH refuses.
  writeFileSync(join(recDir, 'notadir'), '');
  const toSim = (s: string) =>
    s
      .replaceAll('http://127.0.0.1:8099', mediaBase)
      .replaceAll('http://127.0.0.1:8098', closed)
      .replaceAll('/var/lib/recordings', recDir);
  const bMap = new Map<string, string>();
  const normalize = (v: string) => {
    let out = v
      .replaceAll(mediaBase, 'http://127.0.0.1:8099')
      .replaceAll(closed, 'http://127.0.0.1:8098')
      .replaceAll(recDir, '/var/lib/recordings');
    for (const [traceB, sim] of bMap) out = out.replaceAll(sim, traceB);
    return normalizeValue(out);
  };
  const substitute = async (s: string) =>
    substituteUuids(toSim(s), bMap, (traceB) => simBLeg(fixture, traceB, [client]));
  const replies = await replaySteps(fixture.steps, { clients: { 1: client }, substitute });
  for (const r of replies) {
    r.reply = normalize(r.reply);
    if (r.jobResult !== undefined) r.jobResult = normalize(r.jobResult);
  }
  return { replies, normalize };
}

/**
 * Replaces in `text` every recorded uuid that `resolve` knows a simulator uuid for (found once,
 * then kept in `map`); `resolve` answers undefined for a uuid that is the same in both.
 */
export async function substituteUuids(
  text: string,
  map: Map<string, string>,
  resolve: (recorded: string) => Promise<string> | undefined,
): Promise<string> {
  let out = text;
  for (const recorded of new Set(text.match(UUID) ?? [])) {
    if (!map.has(recorded)) {
      const found = resolve(recorded);
      if (!found) continue;
      map.set(recorded, await found);
    }
    out = out.replaceAll(recorded, map.get(recorded)!);
  }
  return out;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** The simulator's loopback B leg for a recorded one (B uuids differ in every run). */
export function simBLeg(
  fixture: Fixture,
  traceB: string,
  clients: readonly EslClient[],
): Promise<string> | undefined {
  const a = fixture.bLegs[traceB];
  if (!a) return undefined;
  return firstEvent(
    clients,
    (e) => e.variable_other_loopback_leg_uuid === a && e['Unique-ID'] !== a,
    10_000,
  ).then((ev) => ev['Unique-ID'] ?? traceB);
}

/** The first event matching `pred` on any of the clients. */
export function firstEvent(
  clients: readonly EslClient[],
  pred: (e: Ev) => boolean,
  timeoutMs: number,
): Promise<Ev> {
  return Promise.any(clients.map((c) => c.waitFor(pred, timeoutMs)));
}

/**
 * Sends the steps at the recording's moments (the timing is the scenario: "pause, wait 1.5 s,
 * pause again"), each to its instance's client; replies as the simulator gave them.
 */
export async function replaySteps(
  steps: readonly Step[],
  plan: ReplayPlan,
): Promise<ReplayResult['replies']> {
  const all = Object.values(plan.clients);
  const replies: ReplayResult['replies'] = [];
  const jobs: Array<Promise<void>> = [];
  const jobDone = new Map<string, Promise<void>>();
  let lastSent = performance.now();
  for (const step of steps) {
    const client = plan.clients[step.node ?? 1];
    if (!client) throw new Error(`no client for instance ${step.node}`);
    // Await what the recorder had seen, then keep the recording's gap after it.
    let anchor = lastSent;
    if (step.after?.length) {
      for (const id of step.after) {
        if (jobDone.has(id)) await jobDone.get(id);
        else
          await firstEvent(
            all,
            (e) => e['Event-Name'] === 'CHANNEL_EXECUTE_COMPLETE' && e['Application-UUID'] === id,
            30_000,
          );
      }
      anchor = performance.now();
    }
    const wait = anchor + (step.delay ?? 0) * 1000 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastSent = performance.now();
    const line = await plan.substitute(step.line);
    const rest = line.slice(step.kind.length + 1);
    const diverted = await plan.divert?.(step, line);
    if (diverted !== undefined) {
      replies.push({ step, reply: diverted });
    } else if (step.kind === 'api') {
      replies.push({ step, reply: await client.api(rest) });
    } else if (step.kind === 'bgapi') {
      const entry: ReplayResult['replies'][number] = { step, reply: '' };
      replies.push(entry);
      const done = client.bgapi(rest, 30_000).then((body) => {
        entry.jobResult = body;
      });
      jobs.push(done);
      if (step.jobUuid) jobDone.set(step.jobUuid, done);
    } else {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(step.headers ?? {}))
        headers[k] = await plan.substitute(v);
      replies.push({ step, reply: await client.command(line, headers) });
    }
  }
  await Promise.all(jobs);
  return replies;
}

/** Event-UUIDs the client chose (sendmsg) are compared; ones FreeSWITCH generated are not. */
function clientUuids(fixture: Fixture): Set<string> {
  return new Set(
    fixture.steps.map((s) => s.headers?.['Event-UUID']).filter((u): u is string => !!u),
  );
}

export function keyHeaders(
  e: Ev,
  fixture: Fixture,
  normalize: (v: string) => string,
  headers: readonly string[] = KEY_HEADERS,
): Record<string, string> {
  const own = clientUuids(fixture);
  const out: Record<string, string> = {};
  for (const h of headers) {
    const v = e[h];
    if (v === undefined) continue;
    out[h] = h === 'Application-UUID' && !own.has(v) ? '<generated>' : normalize(v);
  }
  return out;
}

export function legEvents(
  events: Ev[],
  uuid: string,
  fixture: Fixture,
  normalize: (v: string) => string,
  headers: readonly string[] = KEY_HEADERS,
) {
  return events
    .filter(
      (e) =>
        e['Unique-ID'] === uuid &&
        !SKIPPED_EVENTS.has(e['Event-Name'] ?? '') &&
        e['Event-Name'] !== 'CUSTOM',
    )
    .map((e) => keyHeaders(e, fixture, normalize, headers));
}

export function expectedLeg(fixture: Fixture, uuid: string) {
  const own = clientUuids(fixture);
  return (fixture.legs[uuid] ?? []).map((h) => {
    const copy = { ...h };
    if (copy['Application-UUID'] && !own.has(copy['Application-UUID']))
      copy['Application-UUID'] = '<generated>';
    return copy;
  });
}
