/**
 * Dial ramp: outbound calls at a rate rising from START_RATE to PEAK_RATE per second, held, then
 * stopped (ramping-arrival-rate). Each call is POST /api/v1/dial, then its status polled until
 * `answered`; the call ends by itself after CALL_SEC (`max_duration_sec`). Finds where dial
 * placement (node choice, capacity, the placing Lua script) and the media node's originates stop
 * keeping up: the first 503 `no_fs_capacity`, or answers that come late.
 *
 *   k6 run -e ADMIN_API_KEY=... -e PEAK_RATE=50 -e RAMP=2m loadtest/dial-ramp.ts
 */
import { sleep } from 'k6';
import { Counter, Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { appsFor, CALLER_ID, createApps, deleteApps, newRunId, type TestApp } from './lib/apps.ts';
import { duration, int, num, seconds, target } from './lib/env.ts';
import { api, appHeaders, expectStatus, field } from './lib/http.ts';
import { DIAL_TO } from './lib/sessions.ts';
import { setNumber } from './lib/sim.ts';

const START_RATE = int('START_RATE', 1);
const PEAK_RATE = int('PEAK_RATE', 20);
const RAMP = duration('RAMP', '1m');
const HOLD = duration('HOLD', '1m');
/** How long the simulated callee rings (set on the simulator when SIM_URL is set). */
const RING_MS = int('RING_MS', 1000, 0);
/** Length of each answered call (`max_duration_sec`): with the rate, the calls up at once. */
const CALL_SEC = int('CALL_SEC', 5);
const POLL_MS = int('POLL_MS', 100);
const DIAL_P99_MS = num('DIAL_P99_MS', 100);
/** Time to answer beyond the ring: originate, CHANNEL_ANSWER, session hash, status read. */
const ANSWER_SLACK_MS = num('ANSWER_SLACK_MS', 500);
const MIN_ANSWERED = num('MIN_ANSWERED_RATE', 0.99);

/** POST /dial → GET /dial/{id} says `answered` (includes the RING_MS of the callee). */
const timeToAnswer = new Trend('dial_answer_ms', true);
const answered = new Rate('dial_answered');
/** 503 `no_fs_capacity`: no media node had outbound capacity left. */
const noCapacity = new Counter('dial_no_capacity');

const ITERATION_SEC = RING_MS / 1000 + 1;

export const options: Options = {
  setupTimeout: '2m',
  teardownTimeout: '1m',
  scenarios: {
    ramp: {
      executor: 'ramping-arrival-rate',
      startRate: START_RATE,
      timeUnit: '1s',
      preAllocatedVUs: Math.ceil(PEAK_RATE * ITERATION_SEC * 1.5),
      maxVUs: Math.ceil(PEAK_RATE * ITERATION_SEC * 4) + 10,
      stages: [
        { target: PEAK_RATE, duration: RAMP },
        { target: PEAK_RATE, duration: HOLD },
        { target: 0, duration: '10s' },
      ],
      gracefulStop: '30s',
    },
  },
  thresholds: {
    'http_req_failed{scenario:ramp}': ['rate<0.01'],
    'http_req_duration{name:dial}': [`p(99)<${DIAL_P99_MS}`],
    dial_answered: [`rate>${MIN_ANSWERED}`],
    dial_answer_ms: [`p(99)<${RING_MS + ANSWER_SLACK_MS}`],
    dial_no_capacity: ['count==0'],
  },
};

interface Data {
  readonly apps: TestApp[];
}

export function setup(): Data {
  if (target.simUrl) setNumber(DIAL_TO, 'answer', RING_MS);
  // Per call: the dial and a status poll every POLL_MS while it rings.
  const requestsPerCall = 2 + RING_MS / POLL_MS;
  return { apps: createApps(newRunId(), appsFor(PEAK_RATE * requestsPerCall)) };
}

export default function dial(data: Data): void {
  const app = data.apps[Math.floor(Math.random() * data.apps.length)];
  if (!app) return;
  const started = Date.now();
  const placed = api.post(
    '/api/v1/dial',
    { to: DIAL_TO, from: CALLER_ID, timeout_sec: 30, max_duration_sec: CALL_SEC },
    { name: 'dial', headers: appHeaders(app, true) },
  );
  if (placed.status === 503) noCapacity.add(1);
  if (!expectStatus(placed, 202, 'dial')) {
    answered.add(false);
    return;
  }
  const id = field(placed, 'session_uuid');
  const deadline = started + RING_MS + 10_000;
  while (Date.now() < deadline) {
    sleep(POLL_MS / 1000);
    const status = field(
      api.get(`/api/v1/dial/${id}`, { name: 'dial_status', headers: appHeaders(app) }),
      'status',
    );
    if (status === 'answered') {
      timeToAnswer.add(Date.now() - started);
      answered.add(true);
      return;
    }
    if (status === 'ended') break;
  }
  answered.add(false);
}

export function teardown(data: Data): void {
  // Calls end by themselves after CALL_SEC; wait for them before their apps go.
  sleep(Math.min(CALL_SEC, seconds(HOLD)) + 1);
  deleteApps(data.apps);
}
