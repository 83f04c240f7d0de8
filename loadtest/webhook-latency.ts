/**
 * Webhook end-to-end latency: commands at a constant rate on live calls, each with a command_uid
 * that carries its POST time (`wl.<epoch ms>.…`); the loadtest receiver (receiver/main.ts), the
 * apps' webhook URL, timestamps every delivery and hands k6 a receipt per command: command POST →
 * its `command.result` webhook (end to end), and envelope `timestamp` → arrival (the dispatcher's
 * share). Deliveries are verified with each app's Standard Webhooks secret.
 *
 * Needs the webhook dispatcher (api/src/dispatcher.ts) reading the event bus, and the receiver
 * running where the dispatcher can reach it, on the same clock as k6:
 *
 *   npx tsx loadtest/receiver/main.ts &
 *   k6 run -e ADMIN_API_KEY=... -e RATE=500 loadtest/webhook-latency.ts
 */
import { fail } from 'k6';
import exec from 'k6/execution';
import { Counter, Rate, Trend } from 'k6/metrics';
import type { Options } from 'k6/options';
import { appsFor, createApps, deleteApps, newRunId, type TestApp } from './lib/apps.ts';
import { duration, int, num, seconds, str, target } from './lib/env.ts';
import {
  api,
  appHeaders,
  client,
  expectStatus,
  FOUND_OR_NOT_YET,
  jsonHeaders,
} from './lib/http.ts';
import { hangUpAll, openSessions, type LiveSession } from './lib/sessions.ts';

const RATE = int('RATE', 100);
const DURATION = duration('DURATION', '1m');
/**
 * An immediate command by default: its command.result is published as soon as FreeSWITCH
 * answers the api request, so the figure is the gateway's, not a simulated media frame's (a
 * deferred `answer` waits for its EXECUTE_COMPLETE, 20 ms and more).
 */
const COMMAND = str('COMMAND', 'playback/stop');
/** playback/stop has a 100 ms cooldown per session: each session gets at most 4 per second. */
const SESSIONS = int('SESSIONS', Math.max(50, Math.ceil(RATE / 4)));
/** How long a command's webhook may take before it counts as not delivered. */
const WAIT_MS = int('RECEIPT_WAIT_MS', 5000);
/** Event whitelist of the apps (comma-separated); empty delivers every event, as by default. */
const EVENTS = str('EVENTS', '')
  .split(',')
  .map((e) => e.trim())
  .filter((e) => e !== '');
const E2E_P99_MS = num('E2E_P99_MS', 25);
const E2E_P50_MS = num('E2E_P50_MS', 10);
const MIN_DELIVERED = num('MIN_DELIVERED_RATE', 0.999);

const receiver = client(target.receiverUrl);

/** Command POST → its command.result webhook at the receiver. */
const e2e = new Trend('webhook_e2e_ms', true);
/** Event published (envelope `timestamp`) → webhook at the receiver. */
const delivery = new Trend('webhook_delivery_ms', true);
const delivered = new Rate('webhook_delivered');
const signatureValid = new Rate('webhook_signature_valid');
/** Extra deliveries of one event (retries after a failed attempt, or duplicates). */
const duplicates = new Counter('webhook_duplicates');

export const options: Options = {
  setupTimeout: '5m',
  teardownTimeout: '2m',
  scenarios: {
    webhooks: {
      executor: 'constant-arrival-rate',
      rate: RATE,
      timeUnit: '1s',
      duration: DURATION,
      preAllocatedVUs: Math.max(10, Math.ceil(RATE / 5)),
      maxVUs: Math.ceil(RATE * (WAIT_MS / 1000 + 1)),
      gracefulStop: `${Math.ceil(WAIT_MS / 1000) + 5}s`,
    },
  },
  thresholds: {
    webhook_e2e_ms: [`p(99)<${E2E_P99_MS}`, `p(50)<${E2E_P50_MS}`],
    webhook_delivered: [`rate>${MIN_DELIVERED}`],
    webhook_signature_valid: ['rate==1'],
    'http_req_failed{scenario:webhooks}': ['rate<0.001'],
    dropped_iterations: [`count<${Math.ceil(RATE * seconds(DURATION) * 0.01)}`],
  },
};

interface Data {
  readonly apps: TestApp[];
  readonly sessions: LiveSession[];
}

export function setup(): Data {
  const health = receiver.get('/health', { name: 'receiver_health', headers: {} });
  if (health.status !== 200) {
    fail(
      `the receiver at ${target.receiverUrl} does not answer: npx tsx loadtest/receiver/main.ts`,
    );
  }
  receiver.post('/reset', undefined, { name: 'receiver_reset', headers: {} });
  const apps = createApps(newRunId(), appsFor(RATE), {
    webhookUrl: (id) => `${target.receiverUrl}/hooks/${id}`,
    events: EVENTS,
  });
  for (const app of apps) {
    const res = receiver.put(
      `/apps/${app.id}/secret`,
      { secret: app.secret },
      {
        name: 'receiver_secret',
        headers: jsonHeaders(),
      },
    );
    if (!expectStatus(res, 204, 'receiver secret'))
      fail(`receiver refused the secret of ${app.id}`);
  }
  const sessions = openSessions(apps, SESSIONS, Math.ceil(seconds(DURATION)) + 300);
  return { apps, sessions };
}

interface ReceiptBody {
  readonly e2e_ms: number | null;
  readonly delivery_ms: number | null;
  readonly signature: 'valid' | 'invalid' | 'unchecked';
  readonly deliveries: number;
}

export default function webhooks(data: Data): void {
  const session = data.sessions[exec.scenario.iterationInTest % data.sessions.length];
  if (!session) return;
  const uid = `wl.${Date.now()}.${exec.vu.idInTest}.${exec.vu.iterationInScenario}`;
  const res = api.post(
    `/api/v1/sessions/${session.id}/commands/${COMMAND}`,
    { command_uid: uid },
    { name: 'command', headers: appHeaders(session.app, true) },
  );
  if (!expectStatus(res, 202, COMMAND)) return;
  const receipt = receiver.get(`/receipts/${uid}?wait_ms=${WAIT_MS}`, {
    name: 'receipt',
    headers: {},
    expected: FOUND_OR_NOT_YET,
    timeout: `${Math.ceil(WAIT_MS / 1000) + 5}s`,
  });
  if (receipt.status !== 200) {
    delivered.add(false);
    return;
  }
  delivered.add(true);
  const body = receipt.json() as unknown as ReceiptBody;
  if (body.e2e_ms !== null) e2e.add(body.e2e_ms);
  if (body.delivery_ms !== null) delivery.add(body.delivery_ms);
  if (body.signature !== 'unchecked') signatureValid.add(body.signature === 'valid');
  if (body.deliveries > 1) duplicates.add(body.deliveries - 1);
}

export function teardown(data: Data): void {
  hangUpAll(data.sessions);
  deleteApps(data.apps);
  const stats = receiver.get('/stats', { name: 'receiver_stats', headers: {} });
  console.log(`receiver: ${stats.body as string}`);
}
