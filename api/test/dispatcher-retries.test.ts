import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest } from './helpers.js';
import {
  deadLetters,
  failingApp,
  sequence,
  TestGateway,
  useWebhookGateway,
} from './dispatcher-helpers.js';

const { receiver, gateway, api } = useWebhookGateway({
  // Four attempts, the retries 150 ms apart, so a Retry-After stands out.
  WEBHOOK_RETRY_SCHEDULE: '0,150ms,150ms,150ms',
  WEBHOOK_RETRY_AFTER_MAX_MS: '1500',
});

const ids = (appId: string): string[] =>
  receiver.of(appId).map((r) => String(r.headers['webhook-id']));

/**
 * Creates `appId`, answers its first request `status` with `retry-after: retryAfter`, the next 200,
 * and returns how long the dispatcher waited between the two.
 */
async function waitForRetryAfter(appId: string, status: number, retryAfter: string) {
  await gateway.createApp({ app_id: appId, webhook_url: receiver.url(appId) });
  let calls = 0;
  receiver.respond(appId, () =>
    ++calls === 1 ? { status, headers: { 'retry-after': retryAfter } } : { status: 200 },
  );
  await gateway.publishSeq(appId, 1);
  await receiver.until(() => receiver.of(appId).length === 2, 5000);
  const [first, second] = receiver.of(appId).map((r) => r.at);
  return (second ?? 0) - (first ?? 0);
}

describe('retries', () => {
  it('retries a failing event with the same webhook-id until it is delivered', async () => {
    await gateway.createApp({ app_id: 'flaky', webhook_url: receiver.url('flaky') });
    let calls = 0;
    receiver.respond('flaky', () => ({ status: ++calls < 3 ? 500 : 200 }));
    const event = await gateway.publishSeq('flaky', 1);
    await receiver.until(() => receiver.of('flaky').length === 3);
    expect(ids('flaky')).toEqual([event.event_id, event.event_id, event.event_id]);
    const [first, second, third] = receiver.of('flaky').map((r) => r.at);
    expect((second ?? 0) - (first ?? 0)).toBeGreaterThanOrEqual(140);
    expect((third ?? 0) - (second ?? 0)).toBeGreaterThanOrEqual(140);
  });

  it('410 Gone stops retrying the event: it is dead-lettered and the next one is delivered', async () => {
    await gateway.createApp({ app_id: 'gone', webhook_url: receiver.url('gone') });
    receiver.respond('gone', (r) => ({ status: r.json.duration_ms === 1 ? 410 : 200 }));
    const first = await gateway.publishSeq('gone', 1);
    await gateway.publishSeq('gone', 2);
    await receiver.until(() => receiver.of('gone').length === 2);
    expect(sequence(receiver.of('gone'))).toEqual([1, 2]);

    const letters = await deadLetters(api, 'gone');
    expect(letters).toEqual({
      success: true,
      app_id: 'gone',
      total: 1,
      dead_letters: [
        {
          event_id: first.event_id,
          event: 'dtmf',
          reason: 'gone',
          attempts: 1,
          last_status: 410,
          last_error: 'HTTP 410',
          failed_at: expect.stringMatching(/Z$/),
          payload: { ...first },
        },
      ],
    });
  });

  it('lets a Retry-After on 503 longer than the step lengthen the wait', async () => {
    const waited = await waitForRetryAfter('busy', 503, '1');
    expect(waited).toBeGreaterThanOrEqual(950);
    expect(waited).toBeLessThan(1500);
  });

  it('clamps a long Retry-After on 429 to WEBHOOK_RETRY_AFTER_MAX_MS', async () => {
    const waited = await waitForRetryAfter('throttled', 429, '3600');
    expect(waited).toBeGreaterThanOrEqual(1450);
    expect(waited).toBeLessThan(2200);
  });

  it('dead-letters after the last attempt, lists it, and replays it in order with its webhook-id', async () => {
    const { published, heal } = await failingApp(gateway, receiver, 'broken', 3);
    // Each event gets its four attempts in turn, head of line.
    await receiver.until(() => receiver.of('broken').length === 12, 10_000);
    expect(sequence(receiver.of('broken'))).toEqual([1, 2, 3]);
    await expect.poll(async () => (await deadLetters(api, 'broken')).total).toBe(3);
    const page = await deadLetters(api, 'broken', '?limit=2&offset=1');
    expect(page.total).toBe(3);
    expect(page.dead_letters.map((l) => l.event_id)).toEqual(
      published.slice(1).map((e) => e.event_id),
    );
    expect(page.dead_letters[0]).toMatchObject({
      reason: 'failed',
      attempts: 4,
      last_status: 500,
      last_error: 'HTTP 500',
    });

    heal();
    const replay = await adminRequest(api, 'POST', '/admin/apps/broken/dead-letters/replay');
    expect(replay.statusCode).toBe(200);
    expect(replay.json()).toEqual({ success: true, app_id: 'broken', replayed: 3 });
    // No lane waits, so the dispatcher's own poll is 30 s away: the replay's announcement wakes it.
    await receiver.until(() => receiver.of('broken').length === 15);
    const replayed = receiver.of('broken').slice(12);
    expect(replayed.map((r) => r.headers['webhook-id'])).toEqual(published.map((e) => e.event_id));
    expect(replayed.map((r) => r.body)).toEqual(published.map((e) => JSON.stringify(e)));
    expect((await deadLetters(api, 'broken')).total).toBe(0);
  });

  it('replays only the named dead letters', async () => {
    const {
      published: [a, b],
      heal,
    } = await failingApp(gateway, receiver, 'pick', 2, 410);
    await expect.poll(async () => (await deadLetters(api, 'pick')).total).toBe(2);
    heal();
    const replay = await adminRequest(api, 'POST', '/admin/apps/pick/dead-letters/replay', {
      event_ids: [b?.event_id],
    });
    expect(replay.json().replayed).toBe(1);
    await receiver.until(() => receiver.of('pick').length === 3);
    expect(receiver.of('pick')[2]?.headers['webhook-id']).toBe(b?.event_id);
    const left = await deadLetters(api, 'pick');
    expect(left.dead_letters.map((l) => l.event_id)).toEqual([a?.event_id]);
  });

  it('answers 404 for an unknown app and 409 while its webhooks are off', async () => {
    for (const [method, url] of [
      ['GET', '/admin/apps/ghost/dead-letters'],
      ['POST', '/admin/apps/ghost/dead-letters/replay'],
    ] as const) {
      const res = await adminRequest(api, method, url);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        app_id: 'ghost',
        error: 'App not found',
        code: 'app_not_found',
      });
    }
    await gateway.createApp({ app_id: 'muted', webhook_url: '' });
    const res = await adminRequest(api, 'POST', '/admin/apps/muted/dead-letters/replay');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      success: false,
      error: 'Webhooks are disabled for this application (empty webhook_url)',
      code: 'webhooks_off',
    });
    const bad = await adminRequest(api, 'GET', '/admin/apps/muted/dead-letters?limit=0');
    expect(bad.statusCode).toBe(400);
  });
});

describe('Retry-After never shortens the schedule', () => {
  let slow: TestGateway;

  beforeAll(async () => {
    slow = new TestGateway();
    // Three attempts 1.5 s apart: a receiver's `Retry-After: 1` is shorter than every step.
    await slow.dispatcher({ WEBHOOK_RETRY_SCHEDULE: '0,1500ms,1500ms' });
  });
  afterAll(() => slow.close());

  it('waits the schedule on 503 + Retry-After: 1, dead-letters after its span, and only then goes on', async () => {
    await slow.createApp({ app_id: 'hasty', webhook_url: receiver.url('hasty') });
    receiver.respond('hasty', (r) =>
      r.json.duration_ms === 1 ? { status: 503, headers: { 'retry-after': '1' } } : { status: 200 },
    );
    await slow.publishSeq('hasty', 1);
    await slow.publishSeq('hasty', 2);
    await receiver.until(() => receiver.of('hasty').length === 4, 10_000);

    const [first, second, third, next] = receiver.of('hasty');
    expect([first, second, third].map((r) => r?.json.duration_ms)).toEqual([1, 1, 1]);
    expect(next?.json.duration_ms).toBe(2);
    // The schedule's 1.5 s, not the receiver's 1 s, between attempts.
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(1450);
    expect(third!.at - second!.at).toBeGreaterThanOrEqual(1450);
    // The later event was held behind the head until the head's whole schedule had run.
    expect(next!.at).toBeGreaterThanOrEqual(third!.at);
    const letters = await slow.redis.lrange(slow.keys.webhookDeadLetters('hasty'), 0, -1);
    expect(letters.map((raw) => JSON.parse(raw) as { attempts: number })).toEqual([
      expect.objectContaining({ attempts: 3, last_status: 503, reason: 'failed' }),
    ]);
  });
});
