/**
 * Inbound-call lifecycle at a constant rate of new calls, driven through the simulator's control
 * API: the simulator places a call to an app's DID; the script waits until the session accepts
 * commands (the media node has taken the call and written it: `call.new` is published then),
 * answers it, plays a prompt, talks for a while and hangs up, all through the api. Needs the
 * simulator (`npm start`, or SIM_URL): there is no phone network to call a real FreeSWITCH.
 *
 *   k6 run -e ADMIN_API_KEY=... -e CALL_RATE=20 -e DURATION=2m loadtest/inbound-lifecycle.ts
 */
import { sleep } from 'k6';
import { Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { appsFor, createApps, deleteApps, newRunId, type TestApp } from './lib/apps.ts';
import { duration, int, num, str, target } from './lib/env.ts';
import { api, appHeaders, expectStatus } from './lib/http.ts';
import { answerWhenReady, inboundSessionId, nodePrefix } from './lib/sessions.ts';
import { placeCall, requireSimulator } from './lib/sim.ts';

const CALL_RATE = int('CALL_RATE', 10);
const DURATION = duration('DURATION', '1m');
/** Seconds between the prompt and the hangup: with CALL_RATE, how many calls are up at once. */
const TALK_SEC = num('TALK_SEC', 5);
/** A prompt the media node can fetch; the receiver serves this one. `AUDIO_URL=` plays silence. */
const AUDIO_URL =
  __ENV.AUDIO_URL === '' ? '' : str('AUDIO_URL', `${target.receiverUrl}/audio/tone-2000ms.wav`);
const POLL_MS = int('POLL_MS', 20);
const READY_P99_MS = num('READY_P99_MS', 500);
const COMMAND_P99_MS = num('COMMAND_P99_MS', 50);
const MIN_COMPLETED = num('MIN_COMPLETED_RATE', 0.99);

/** Call placed in the simulator → the session accepts its first command. */
const ready = new Trend('inbound_ready_ms', true);
/** Placed, answered, prompted and hung up, every step answered as the contract says. */
const completed = new Rate('inbound_call_completed');

/** Requests per call: the answer polls (every POLL_MS while not ready), playback, hangup. */
const REQUESTS_PER_CALL = 3 + Math.ceil(READY_P99_MS / POLL_MS);

export const options: Options = {
  setupTimeout: '2m',
  teardownTimeout: '1m',
  scenarios: {
    calls: {
      executor: 'constant-arrival-rate',
      rate: CALL_RATE,
      timeUnit: '1s',
      duration: DURATION,
      // Each call holds its VU for about TALK_SEC.
      preAllocatedVUs: Math.ceil(CALL_RATE * (TALK_SEC + 1) * 1.2),
      maxVUs: Math.ceil(CALL_RATE * (TALK_SEC + 2) * 2),
      gracefulStop: `${Math.ceil(TALK_SEC) + 10}s`,
    },
  },
  thresholds: {
    inbound_call_completed: [`rate>${MIN_COMPLETED}`],
    inbound_ready_ms: [`p(99)<${READY_P99_MS}`],
    'http_req_failed{scenario:calls}': ['rate<0.01'],
    'http_req_duration{name:playback}': [`p(99)<${COMMAND_P99_MS}`],
    'http_req_duration{name:hangup}': [`p(99)<${COMMAND_P99_MS}`],
  },
};

interface Data {
  readonly apps: TestApp[];
  readonly prefix: string;
}

export function setup(): Data {
  requireSimulator('inbound-lifecycle');
  const apps = createApps(newRunId(), appsFor(CALL_RATE * REQUESTS_PER_CALL), {
    dids: true,
  });
  const first = apps[0];
  return { apps, prefix: first ? nodePrefix(first) : '' };
}

export default function call(data: Data): void {
  const app = data.apps[Math.floor(Math.random() * data.apps.length)];
  if (!app) return;
  const uuid = placeCall(app.did);
  if (!uuid) {
    completed.add(false);
    return;
  }
  const session = { id: inboundSessionId(data.prefix, uuid), app };
  const waited = answerWhenReady(session, 10_000, POLL_MS);
  if (waited < 0) {
    completed.add(false);
    return;
  }
  ready.add(waited);
  const play = AUDIO_URL
    ? api.post(
        `/api/v1/sessions/${session.id}/commands/playback/start`,
        { urls: [AUDIO_URL] },
        {
          name: 'playback',
          headers: appHeaders(app, true),
        },
      )
    : api.post(`/api/v1/sessions/${session.id}/commands/playback/silence`, undefined, {
        name: 'playback',
        headers: appHeaders(app),
      });
  const played = expectStatus(play, 202, 'playback');
  sleep(TALK_SEC);
  const hangup = api.post(`/api/v1/sessions/${session.id}/commands/hangup`, undefined, {
    name: 'hangup',
    headers: appHeaders(app),
  });
  completed.add(played && expectStatus(hangup, 202, 'hangup'));
}

export function teardown(data: Data): void {
  deleteApps(data.apps);
}
