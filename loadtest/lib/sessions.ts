import { fail, sleep } from 'k6';
import http, { type Response } from 'k6/http';
import { CALLER_ID, type TestApp } from './apps.ts';
import { int, str, target } from './env.ts';
import { ACCEPTED_OR_NOT_YET, api, appHeaders, expectStatus, field } from './http.ts';
import { placeCalls, requireSimulator } from './sim.ts';

/** A live, answered call a scenario sends commands to. */
export interface LiveSession {
  readonly id: string;
  readonly app: TestApp;
}

/**
 * How setup() opens live calls: `dial` (default; works against a real cluster when DIAL_TO
 * answers) or `inbound` (calls placed through the simulator to each app's DID, answered via the
 * api).
 */
export const SESSION_SOURCE = str('SESSION_SOURCE', 'dial');
/** The number dialled for `dial` sessions; the simulator answers any number after 1 s. */
export const DIAL_TO = str('DIAL_TO', '0501234567');
/** How long setup() waits for every call to be answered. */
const SETUP_WAIT_SEC = int('SETUP_WAIT_SEC', 60);
/** Requests setup() sends at once. */
const BATCH = 50;

const sleepMs = (ms: number): void => sleep(ms / 1000);

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * The prefix of the media node behind the simulator, which inbound session ids start with:
 * NODE_PREFIX, else read from the id of a probe room (rooms are hosted by a live media node;
 * `npm start` has one). A simulator is one FreeSWITCH, driven by exactly one media node.
 */
export function nodePrefix(app: TestApp): string {
  const configured = str('NODE_PREFIX', '');
  if (configured) return configured;
  const room = api.post(
    '/api/v1/conferences',
    { name: `probe-${Math.random().toString(36).slice(2, 10)}` },
    { name: 'conference_create', headers: appHeaders(app, true) },
  );
  if (!expectStatus(room, 201, 'probe room')) fail(`cannot learn the media node prefix`);
  const roomId = field(room, 'room_id');
  api.del(`/api/v1/conferences/${roomId}`, {
    name: 'conference_delete',
    headers: appHeaders(app),
  });
  return roomId.split('-room-')[0] ?? '';
}

/** The session id of an inbound call: the media node's prefix and FreeSWITCH's channel uuid. */
export const inboundSessionId = (prefix: string, uuid: string): string => `${prefix}-${uuid}`;

/**
 * POSTs `answer` until the session exists (404 until the media node has taken the call), with
 * a fixed command_uid so that only one answer runs. Returns the ms waited, or -1.
 */
export function answerWhenReady(session: LiveSession, timeoutMs: number, pollMs: number): number {
  const started = Date.now();
  const uid = `answer-${session.id.slice(-12)}`;
  while (Date.now() - started < timeoutMs) {
    const res = api.post(
      `/api/v1/sessions/${session.id}/commands/answer`,
      { command_uid: uid },
      {
        name: 'answer_until_ready',
        headers: appHeaders(session.app, true),
        expected: ACCEPTED_OR_NOT_YET,
      },
    );
    if (res.status === 202) return Date.now() - started;
    if (res.status !== 404) {
      expectStatus(res, 202, 'answer an inbound call');
      return -1;
    }
    sleepMs(pollMs);
  }
  return -1;
}

/** The owner of each of `count` calls: runs of `group` consecutive calls share an app. */
function owners(apps: readonly TestApp[], count: number, group: number): TestApp[] {
  return Array.from(
    { length: count },
    (_, i) => apps[Math.floor(i / group) % apps.length] as TestApp,
  );
}

function dialAll(wanted: readonly TestApp[], lifetimeSec: number): LiveSession[] {
  const dialled: LiveSession[] = [];
  for (const batch of chunks(wanted, BATCH)) {
    const responses = http.batch(
      batch.map((app) => ({
        method: 'POST',
        url: `${target.baseUrl}/api/v1/dial`,
        body: JSON.stringify({ to: DIAL_TO, from: CALLER_ID, max_duration_sec: lifetimeSec }),
        params: { headers: appHeaders(app, true), tags: { name: 'dial' } },
      })),
    );
    responses.forEach((res: Response, i) => {
      const app = batch[i];
      if (app && expectStatus(res, 202, 'dial (setup)')) {
        dialled.push({ id: field(res, 'session_uuid'), app });
      }
    });
  }
  // Poll the dial status until every call is answered (or ended, or the wait is over).
  const answered = new Set<string>();
  let pending = dialled;
  const deadline = Date.now() + SETUP_WAIT_SEC * 1000;
  while (pending.length > 0 && Date.now() < deadline) {
    sleepMs(500);
    const still: LiveSession[] = [];
    for (const batch of chunks(pending, BATCH)) {
      const responses = http.batch(
        batch.map((s) => ({
          method: 'GET',
          url: `${target.baseUrl}/api/v1/dial/${s.id}`,
          params: { headers: appHeaders(s.app), tags: { name: 'dial_status' } },
        })),
      );
      responses.forEach((res: Response, i) => {
        const session = batch[i];
        if (!session) return;
        const status = field(res, 'status');
        if (status === 'answered') answered.add(session.id);
        else if (status !== 'ended') still.push(session);
      });
    }
    pending = still;
  }
  return dialled.filter((s) => answered.has(s.id));
}

function placeInbound(wanted: readonly TestApp[]): LiveSession[] {
  requireSimulator('SESSION_SOURCE=inbound');
  const first = wanted[0];
  if (!first) return [];
  const prefix = nodePrefix(first);
  const placed: LiveSession[] = [];
  for (const batch of chunks(wanted, BATCH)) {
    const uuids = placeCalls(batch.map((app) => ({ to: app.did })));
    uuids.forEach((uuid, i) => {
      const app = batch[i];
      if (uuid && app) placed.push({ id: inboundSessionId(prefix, uuid), app });
    });
  }
  return placed.filter((s) => answerWhenReady(s, SETUP_WAIT_SEC * 1000, 100) >= 0);
}

/**
 * Opens `count` live, answered calls spread over `apps` (setup()), runs of `group` consecutive
 * calls in one app, each ending by itself after `lifetimeSec` (dial `max_duration_sec`) should
 * teardown never run. Sessions keep the order of their owners (those that failed are left out);
 * fails the run when fewer than 90 % could be opened: the figures would describe another load.
 */
export function openSessions(
  apps: readonly TestApp[],
  count: number,
  lifetimeSec: number,
  group = 1,
): LiveSession[] {
  const wanted = owners(apps, count, group);
  const sessions =
    SESSION_SOURCE === 'inbound' ? placeInbound(wanted) : dialAll(wanted, lifetimeSec);
  if (sessions.length < count * 0.9) {
    fail(`only ${sessions.length} of ${count} calls were answered within ${SETUP_WAIT_SEC} s`);
  }
  console.log(`setup: ${sessions.length} live sessions (${SESSION_SOURCE})`);
  return sessions;
}

/** Hangs up every session (teardown); those already gone answer 404. */
export function hangUpAll(sessions: readonly LiveSession[]): void {
  for (const batch of chunks(sessions, BATCH)) {
    http.batch(
      batch.map((s) => ({
        method: 'POST',
        url: `${target.baseUrl}/api/v1/sessions/${s.id}/commands/hangup`,
        params: {
          headers: appHeaders(s.app),
          tags: { name: 'hangup_teardown' },
          responseCallback: ACCEPTED_OR_NOT_YET,
        },
      })),
    );
  }
}
