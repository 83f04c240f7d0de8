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

export function loadFixture(name: string): Fixture {
  const path = join(import.meta.dirname, 'fixtures', 'traces', `${name}.json`);
  return JSON.parse(readFileSync(path, 'utf8')) as Fixture;
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

  const simB = async (traceB: string): Promise<string> => {
    const a = fixture.bLegs[traceB];
    if (!a) return traceB;
    const ev = await client.waitFor(
      (e) => e.variable_other_loopback_leg_uuid === a && e['Unique-ID'] !== a,
    );
    return ev['Unique-ID'] ?? traceB;
  };
  const substitute = async (s: string): Promise<string> => {
    let out = toSim(s);
    for (const traceB of Object.keys(fixture.bLegs)) {
      if (!out.includes(traceB)) continue;
      if (!bMap.has(traceB)) bMap.set(traceB, await simB(traceB));
      out = out.replaceAll(traceB, bMap.get(traceB)!);
    }
    return out;
  };

  const replies: ReplayResult['replies'] = [];
  const jobs: Array<Promise<void>> = [];
  const jobDone = new Map<string, Promise<void>>();
  let lastSent = performance.now();
  for (const step of fixture.steps) {
    // Await what the recorder had seen, then keep the recording's gap after it.
    let anchor = lastSent;
    if (step.after?.length) {
      for (const id of step.after) {
        if (jobDone.has(id)) await jobDone.get(id);
        else
          await client.waitFor(
            (e) => e['Event-Name'] === 'CHANNEL_EXECUTE_COMPLETE' && e['Application-UUID'] === id,
            30_000,
          );
      }
      anchor = performance.now();
    }
    const wait = anchor + (step.delay ?? 0) * 1000 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    lastSent = performance.now();
    const line = await substitute(step.line);
    const rest = line.slice(step.kind.length + 1);
    if (step.kind === 'api') {
      replies.push({ step, reply: normalize(await client.api(rest)) });
    } else if (step.kind === 'bgapi') {
      const entry: ReplayResult['replies'][number] = { step, reply: '' };
      replies.push(entry);
      const done = client.bgapi(rest, 30_000).then((body) => {
        entry.jobResult = normalize(body);
      });
      jobs.push(done);
      if (step.jobUuid) jobDone.set(step.jobUuid, done);
    } else {
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(step.headers ?? {})) headers[k] = await substitute(v);
      replies.push({ step, reply: normalize(await client.command(line, headers)) });
    }
  }
  await Promise.all(jobs);
  return { replies, normalize };
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
): Record<string, string> {
  const own = clientUuids(fixture);
  const out: Record<string, string> = {};
  for (const h of KEY_HEADERS) {
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
) {
  return events
    .filter(
      (e) =>
        e['Unique-ID'] === uuid &&
        !SKIPPED_EVENTS.has(e['Event-Name'] ?? '') &&
        e['Event-Name'] !== 'CUSTOM',
    )
    .map((e) => keyHeaders(e, fixture, normalize));
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
