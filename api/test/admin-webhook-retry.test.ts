import { describe, expect, it } from 'vitest';
import type { LaneEntry } from '../src/webhooks/lanes.js';
import { ADMIN_KEY, useApi } from './helpers.js';
import { failingApp, sequence, useWebhookGateway } from './dispatcher-helpers.js';

// A retry an hour after the first failure: any delivery within the test came from "retry now".
const HOUR = 3_600_000;

// Two dispatchers share the shards: the api reaches whichever owns the app only through Redis.
const RETRY_IN_AN_HOUR = { WEBHOOK_RETRY_SCHEDULE: '0,1h' };
const { receiver, gateway, api } = useWebhookGateway(RETRY_IN_AN_HOUR, RETRY_IN_AN_HOUR);
const unconfigured = useApi(() => ({ REDIS_PREFIX: gateway.prefix, ADMIN_API_KEY: '' }));

const retry = (appId: string, headers: Record<string, string> = { 'x-admin-api-key': ADMIN_KEY }) =>
  api.app.inject({ method: 'POST', url: `/admin/apps/${appId}/webhooks/retry`, headers });

const laneOf = async (appId: string): Promise<LaneEntry[]> =>
  (await gateway.redis.lrange(gateway.keys.webhookLane(appId), 0, -1)).map(
    (raw) => JSON.parse(raw) as LaneEntry,
  );

/** Publishes `count` events to an app whose receiver fails, and waits until all wait in its lane. */
async function failingLane(appId: string, count: number) {
  const app = await failingApp(gateway, receiver, appId, count, 503);
  await expect.poll(async () => (await laneOf(appId)).length).toBe(count);
  const [head] = await laneOf(appId);
  return { ...app, head: head! };
}

describe('POST /admin/apps/{app_id}/webhooks/retry', () => {
  it("attempts a waiting app's lane now, head first and in order, across dispatchers", async () => {
    const lane = await failingLane('mended', 3);
    expect(lane.head).toMatchObject({ attempts: 1, last_status: 503 });
    expect(lane.head.next_at).toBeGreaterThan(Date.now() + HOUR * 0.5);
    lane.heal();

    const res = await retry('mended');
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({
      success: true,
      app_id: 'mended',
      waiting: 3,
      head: {
        event_id: lane.published[0]!.event_id,
        event: 'dtmf',
        attempts: 1,
        last_status: 503,
        last_error: 'HTTP 503',
        scheduled_at: new Date(lane.head.next_at).toISOString(),
      },
    });
    await receiver.until(() => receiver.of('mended').length === 4);
    expect(sequence(receiver.of('mended'))).toEqual([1, 2, 3]);
    expect(receiver.of('mended').map((r) => r.headers['webhook-id'])).toEqual(
      [lane.published[0], ...lane.published].map((e) => e!.event_id),
    );
    await expect.poll(async () => (await laneOf('mended')).length).toBe(0);
  });

  it('answers 200 with nothing waiting once the lane is empty', async () => {
    await gateway.createApp({ app_id: 'calm', webhook_url: receiver.url('calm') });
    const res = await retry('calm');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, app_id: 'calm', waiting: 0, head: null });
  });

  it('does not use up the schedule when the attempt made now fails again', async () => {
    // Two attempts in all: were the retry-now attempt counted, it would dead-letter the event.
    const lane = await failingLane('relapse', 1);
    const res = await retry('relapse');
    expect(res.statusCode).toBe(202);
    await receiver.until(() => receiver.of('relapse').length === 2);
    await expect
      .poll(async () => (await laneOf('relapse'))[0])
      .toEqual({ ...lane.head, next_at: lane.head.next_at });
    expect(await gateway.redis.llen(gateway.keys.webhookDeadLetters('relapse'))).toBe(0);
  });

  it('answers 404 for an unknown app and 409 while its webhooks are off or it is disabled', async () => {
    const ghost = await retry('ghost');
    expect([ghost.statusCode, ghost.json()]).toEqual([
      404,
      { success: false, app_id: 'ghost', error: 'App not found', code: 'app_not_found' },
    ]);
    await gateway.createApp({ app_id: 'muted', webhook_url: '' });
    const muted = await retry('muted');
    expect([muted.statusCode, muted.json()]).toEqual([
      409,
      {
        success: false,
        error: 'Webhooks are disabled for this application (empty webhook_url)',
        code: 'webhooks_off',
      },
    ]);
    await gateway.createApp({ app_id: 'benched', webhook_url: receiver.url('benched') });
    await gateway.redis.hset(gateway.keys.app('benched'), 'disabled_at', Date.now());
    const benched = await retry('benched');
    expect([benched.statusCode, benched.json()]).toEqual([
      409,
      {
        success: false,
        error: 'Application is disabled; POST its configuration to re-enable it',
        code: 'app_disabled',
      },
    ]);
  });

  it('answers 401 without a valid admin key and 503 when the admin API is not configured', async () => {
    await gateway.createApp({ app_id: 'guarded', webhook_url: receiver.url('guarded') });
    const missing = await retry('guarded', {});
    expect([missing.statusCode, missing.json()]).toEqual([
      401,
      { success: false, error: 'Missing X-Admin-API-Key header', code: 'missing_admin_key' },
    ]);
    const wrong = await retry('guarded', { 'x-admin-api-key': 'not-the-admin-key-at-all' });
    expect([wrong.statusCode, wrong.json()]).toEqual([
      401,
      { success: false, error: 'Invalid admin API key', code: 'invalid_admin_key' },
    ]);
    const off = await unconfigured.app.inject({
      method: 'POST',
      url: '/admin/apps/guarded/webhooks/retry',
      headers: { 'x-admin-api-key': ADMIN_KEY },
    });
    expect([off.statusCode, off.json()]).toEqual([
      503,
      { success: false, error: 'Admin API not configured', code: 'admin_not_configured' },
    ]);
  });
});
