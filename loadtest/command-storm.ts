/**
 * Command storm: a constant rate of session commands on live calls, the api's hot path
 * (auth, rate limits, ownership, idempotency, XADD to the media node's stream) under load, with
 * the media node executing every one of them against FreeSWITCH (or the simulator).
 *
 *   k6 run -e ADMIN_API_KEY=... -e RATE=500 -e DURATION=2m loadtest/command-storm.ts
 */
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import type { Options } from 'k6/options';
import { appsFor, createApps, deleteApps, newRunId, type TestApp } from './lib/apps.ts';
import { duration, int, num, seconds, str } from './lib/env.ts';
import { api, appHeaders, expectStatus } from './lib/http.ts';
import { hangUpAll, openSessions, type LiveSession } from './lib/sessions.ts';

const RATE = int('RATE', 200);
const DURATION = duration('DURATION', '1m');
const SESSIONS = int('SESSIONS', 50);
/** `answer` has no cooldown; a command with one needs RATE / SESSIONS below 1 / cooldown. */
const COMMAND = str('COMMAND', 'answer');
/** JSON body of the command, e.g. `{"cause":"NORMAL_CLEARING"}`; none by default. */
const BODY: unknown =
  str('COMMAND_BODY', '') === '' ? undefined : JSON.parse(str('COMMAND_BODY', ''));
const P99_MS = num('COMMAND_P99_MS', 50);
const P50_MS = num('COMMAND_P50_MS', 10);
const MAX_FAILED = num('MAX_FAILED_RATE', 0.001);

const accepted = new Counter('commands_accepted');
const rateLimited = new Counter('commands_rate_limited');

export const options: Options = {
  setupTimeout: '5m',
  teardownTimeout: '2m',
  scenarios: {
    storm: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: Math.max(10, Math.ceil(RATE / 20)),
      maxVUs: Math.max(50, RATE),
    },
  },
  thresholds: {
    'http_req_failed{scenario:storm}': [`rate<${MAX_FAILED}`],
    'http_req_duration{name:command}': [`p(99)<${P99_MS}`, `p(50)<${P50_MS}`],
    'checks{scenario:storm}': [`rate>${1 - MAX_FAILED}`],
    commands_rate_limited: ['count==0'],
    dropped_iterations: [`count<${Math.ceil(RATE * seconds(DURATION) * 0.01)}`],
  },
};

interface Data {
  readonly apps: TestApp[];
  readonly sessions: LiveSession[];
}

export function setup(): Data {
  const apps = createApps(newRunId(), appsFor(RATE));
  // Calls outlive the run by a margin; teardown hangs them up.
  const sessions = openSessions(apps, SESSIONS, Math.ceil(seconds(DURATION)) + 300);
  return { apps, sessions };
}

export default function storm(data: Data): void {
  const session = data.sessions[exec.scenario.iterationInTest % data.sessions.length];
  if (!session) return;
  const res = api.post(`/api/v1/sessions/${session.id}/commands/${COMMAND}`, BODY, {
    name: 'command',
    headers: appHeaders(session.app, BODY !== undefined),
  });
  if (res.status === 429) rateLimited.add(1);
  if (expectStatus(res, 202, COMMAND)) accepted.add(1);
}

export function teardown(data: Data): void {
  hangUpAll(data.sessions);
  deleteApps(data.apps);
}
