/**
 * Conference churn: each VU runs rooms one after another: create a room, join its own MEMBERS
 * live calls (they join muted), play a prompt to the room, hold, delete the room (which kicks the
 * members back to park), and again. Rooms, member sets and room commands are the Redis-heavy
 * part of the api (Lua scripts per join and per delete) and the conference work of the media node.
 *
 *   k6 run -e ADMIN_API_KEY=... -e VUS=10 -e MEMBERS=4 -e DURATION=2m loadtest/conference-churn.ts
 */
import { check, fail, sleep } from 'k6';
import exec from 'k6/execution';
import { Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { appsFor, createApps, deleteApps, newRunId, type TestApp } from './lib/apps.ts';
import { duration, int, num, seconds, str, target } from './lib/env.ts';
import { api, appHeaders, expectStatus, field } from './lib/http.ts';
import { hangUpAll, openSessions, type LiveSession } from './lib/sessions.ts';

const VUS = int('VUS', 5);
const MEMBERS = int('MEMBERS', 3);
const DURATION = duration('DURATION', '1m');
/** Time for the media node to confirm the joins before the room plays. */
const SETTLE_MS = int('SETTLE_MS', 500, 0);
/** How long a room lives with its members and its prompt. */
const HOLD_SEC = num('HOLD_SEC', 2);
const AUDIO_URL =
  __ENV.AUDIO_URL === '' ? '' : str('AUDIO_URL', `${target.receiverUrl}/audio/tone-2000ms.wav`);
const P99_MS = num('CONFERENCE_P99_MS', 100);
const MIN_OK = num('MIN_CYCLE_OK_RATE', 0.99);

/** A session may join again only 2 s after its previous join (the `conference` cooldown). */
const JOIN_COOLDOWN_MS = 2000;

/** Create → every member accepted (202 joining). */
const setupTime = new Trend('conference_setup_ms', true);
/** A whole room cycle answered as the contract says. */
const cycleOk = new Rate('conference_cycle_ok');

export const options: Options = {
  setupTimeout: '5m',
  teardownTimeout: '2m',
  scenarios: {
    churn: { executor: 'constant-vus', vus: VUS, duration: DURATION, gracefulStop: '30s' },
  },
  thresholds: {
    conference_cycle_ok: [`rate>${MIN_OK}`],
    'http_req_failed{scenario:churn}': ['rate<0.01'],
    'http_req_duration{name:conference_create}': [`p(99)<${P99_MS}`],
    'http_req_duration{name:conference_join}': [`p(99)<${P99_MS}`],
    'http_req_duration{name:conference_play}': [`p(99)<${P99_MS}`],
    'http_req_duration{name:conference_delete}': [`p(99)<${P99_MS}`],
  },
};

interface Data {
  readonly apps: TestApp[];
  readonly sessions: LiveSession[];
  /** MEMBERS calls of one app per VU: a room belongs to one app, a call is in one room. */
  readonly teams: LiveSession[][];
}

function teamsOf(sessions: readonly LiveSession[]): LiveSession[][] {
  const byApp = new Map<string, LiveSession[]>();
  for (const s of sessions) byApp.set(s.app.id, [...(byApp.get(s.app.id) ?? []), s]);
  const teams: LiveSession[][] = [];
  for (const calls of byApp.values()) {
    for (let i = 0; i + MEMBERS <= calls.length; i += MEMBERS)
      teams.push(calls.slice(i, i + MEMBERS));
  }
  return teams;
}

export function setup(): Data {
  // Per room cycle: create, MEMBERS joins, members list, play, delete.
  const cyclesPerSec = VUS / (HOLD_SEC + SETTLE_MS / 1000);
  const apps = createApps(newRunId(), appsFor(cyclesPerSec * (MEMBERS + 4)));
  // 10 % spare calls, so that a few failed dials still leave a team for every VU.
  const wanted = Math.ceil(VUS * 1.1) * MEMBERS;
  const sessions = openSessions(apps, wanted, Math.ceil(seconds(DURATION)) + 300, MEMBERS);
  const teams = teamsOf(sessions);
  if (teams.length < VUS) fail(`only ${teams.length} teams of ${MEMBERS} calls for ${VUS} VUs`);
  return { apps, sessions, teams };
}

export default function churn(data: Data): void {
  const members = data.teams[exec.vu.idInTest - 1] ?? [];
  const app = members[0]?.app;
  if (!app) return;
  const started = Date.now();
  const created = api.post(
    '/api/v1/conferences',
    { name: `churn-${exec.vu.idInTest}-${exec.vu.iterationInScenario}-${Date.now()}` },
    { name: 'conference_create', headers: appHeaders(app, true) },
  );
  if (!expectStatus(created, 201, 'create room')) {
    cycleOk.add(false);
    sleep(1);
    return;
  }
  const roomId = field(created, 'room_id');
  let ok = true;
  for (const member of members) {
    const joined = api.post(
      `/api/v1/sessions/${member.id}/commands/conference/join`,
      { room_id: roomId },
      { name: 'conference_join', headers: appHeaders(app, true) },
    );
    ok = expectStatus(joined, 202, 'join room') && ok;
  }
  setupTime.add(Date.now() - started);
  sleep(SETTLE_MS / 1000);
  const listed = api.get(`/api/v1/conferences/${roomId}/members`, {
    name: 'conference_members',
    headers: appHeaders(app),
  });
  ok =
    check(listed, {
      'every member listed': (r) => (r.json('members.#') as number | null) === members.length,
    }) && ok;
  if (AUDIO_URL) {
    const played = api.post(
      `/api/v1/conferences/${roomId}/play`,
      { urls: [AUDIO_URL] },
      { name: 'conference_play', headers: appHeaders(app, true) },
    );
    ok = expectStatus(played, 202, 'play to room') && ok;
  }
  sleep(HOLD_SEC);
  const deleted = api.del(`/api/v1/conferences/${roomId}`, {
    name: 'conference_delete',
    headers: appHeaders(app),
  });
  cycleOk.add(expectStatus(deleted, 200, 'delete room') && ok);
  // The next join of these calls must respect their cooldown.
  const left = JOIN_COOLDOWN_MS + 100 - (Date.now() - started);
  if (left > 0) sleep(left / 1000);
}

export function teardown(data: Data): void {
  hangUpAll(data.sessions);
  deleteApps(data.apps);
}
