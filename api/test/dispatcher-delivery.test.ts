import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Dispatcher } from '../src/webhooks/start.js';
import { TestGateway, useGateway, useReceiver } from './dispatcher-helpers.js';

let dispatcher: Dispatcher;

const receiver = useReceiver();
const gateway = useGateway();
beforeAll(async () => {
  dispatcher = await gateway.dispatcher();
});

/** The dispatcher's voicegw_webhook_deliveries_total for one outcome and event. */
const deliveries = async (outcome: string, event: string): Promise<number> => {
  const text = await (await fetch(`http://127.0.0.1:${dispatcher.metricsPort}/metrics`)).text();
  const series = `voicegw_webhook_deliveries_total{outcome="${outcome}",event="${event}",proc="dispatcher"}`;
  const match = new RegExp(`${series.replace(/[.{}]/g, '\\$&')} (\\d+)`).exec(text);
  return match ? Number(match[1]) : 0;
};

describe('webhook delivery', () => {
  it('POSTs the event envelope with Standard Webhooks headers a receiver can verify', async () => {
    const app = await gateway.createApp({ app_id: 'signed', webhook_url: receiver.url('signed') });
    const published = await gateway.publish('signed', {
      event: 'call.new',
      session_uuid: 'abcde-11111111-1111-4111-8111-111111111111',
      caller_id: '0501234567',
      did: '0731234567',
    });
    await receiver.until(() => receiver.of('signed').length === 1);
    const [request] = receiver.of('signed');

    expect(request?.headers['content-type']).toBe('application/json');
    expect(request?.headers['webhook-id']).toBe(published.event_id);
    expect(request?.headers['webhook-timestamp']).toMatch(/^\d{10}$/);
    expect(request?.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(request?.json).toEqual({
      event: 'call.new',
      session_uuid: 'abcde-11111111-1111-4111-8111-111111111111',
      caller_id: '0501234567',
      did: '0731234567',
      event_id: published.event_id,
      app_id: 'signed',
      timestamp: published.timestamp,
    });
    const verified = new Webhook(app.webhook_secret).verify(
      request?.body ?? '',
      request?.headers as Record<string, string>,
    );
    expect(verified).toEqual(request?.json);
    // Signed with another secret, the same request does not verify.
    const other = new Webhook(`whsec_${Buffer.alloc(24, 7).toString('base64')}`);
    expect(() =>
      other.verify(request?.body ?? '', request?.headers as Record<string, string>),
    ).toThrow('No matching signature found');
  });

  it('echoes dial metadata in the envelope', async () => {
    await gateway.createApp({ app_id: 'meta', webhook_url: receiver.url('meta') });
    await gateway.publisher.publish(
      'meta',
      {
        event: 'session.ringing',
        session_uuid: 'abcde-22222222-2222-4222-8222-222222222222',
        to: '0501234567',
        from: '0722000000',
      },
      { order: '42' },
    );
    await receiver.until(() => receiver.of('meta').length === 1);
    expect(receiver.of('meta')[0]?.json).toMatchObject({
      event: 'session.ringing',
      metadata: { order: '42' },
    });
  });

  it('delivers only the events on the app whitelist', async () => {
    await gateway.createApp({
      app_id: 'picky',
      webhook_url: receiver.url('picky'),
      events: ['call.hangup'],
    });
    const session = 'abcde-33333333-3333-4333-8333-333333333333';
    await gateway.publish('picky', { event: 'call.answered', session_uuid: session });
    await gateway.publish('picky', {
      event: 'dtmf',
      session_uuid: session,
      digit: '5',
      duration_ms: 80,
    });
    await gateway.publish('picky', {
      event: 'call.hangup',
      session_uuid: session,
      hangup_cause: 'completed',
      duration_seconds: 3,
    });
    await receiver.until(() => receiver.of('picky').length === 1);
    // Everything before the hangup was filtered, and nothing more arrives after it.
    await gateway.publishSeq('picky', 1);
    await expect.poll(() => deliveries('filtered', 'dtmf')).toBe(2);
    expect(receiver.of('picky').map((r) => r.json.event)).toEqual(['call.hangup']);
  });

  it('drops events of an app without a webhook_url, and of an unknown app', async () => {
    await gateway.createApp({ app_id: 'silent', webhook_url: '' });
    await gateway.publishSeq('silent', 1);
    await gateway.publishSeq('nobody', 1);
    await expect.poll(() => deliveries('dropped', 'dtmf')).toBe(2);
    expect(receiver.of('silent')).toEqual([]);
  });

  it('a 3xx is a failure: the event is retried, not redirected', async () => {
    await gateway.createApp({ app_id: 'moved', webhook_url: receiver.url('moved') });
    let answers = 0;
    receiver.respond('moved', () =>
      ++answers === 1
        ? { status: 301, headers: { location: receiver.url('elsewhere') } }
        : { status: 204 },
    );
    const published = await gateway.publishSeq('moved', 1);
    await receiver.until(() => receiver.of('moved').length === 2);
    expect(receiver.of('moved').map((r) => r.headers['webhook-id'])).toEqual([
      published.event_id,
      published.event_id,
    ]);
    expect(receiver.of('elsewhere')).toEqual([]);
  });

  it('an attempt without a response within WEBHOOK_TIMEOUT_MS fails and is retried', async () => {
    const quick = new TestGateway();
    try {
      await quick.createApp({ app_id: 'sleepy', webhook_url: receiver.url('sleepy') });
      let calls = 0;
      receiver.respond('sleepy', () => ({ status: 200, delayMs: ++calls === 1 ? 2000 : 0 }));
      await quick.dispatcher({ WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_SCHEDULE: '0,50ms' });
      const event = await quick.publishSeq('sleepy', 1);
      await receiver.until(() => receiver.of('sleepy').length === 2);
      const [first, second] = receiver.of('sleepy');
      expect(second?.headers['webhook-id']).toBe(event.event_id);
      // Retried after the 300 ms timeout and 50 ms, long before the first answer would come.
      const gap = (second?.at ?? 0) - (first?.at ?? 0);
      expect(gap).toBeGreaterThanOrEqual(340);
      expect(gap).toBeLessThan(1500);
    } finally {
      await quick.close();
    }
  });

  it('serves metrics and health on its own port', async () => {
    const health = await fetch(`http://127.0.0.1:${dispatcher.metricsPort}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({
      status: 'ok',
      partitions: expect.arrayContaining(['shard-0', 'shard-1', 'shard-2', 'shard-3']),
      routing: true,
    });
    const text = await (await fetch(`http://127.0.0.1:${dispatcher.metricsPort}/metrics`)).text();
    for (const name of [
      'voicegw_webhook_deliveries_total',
      'voicegw_webhook_delivery_duration_seconds_bucket',
      'voicegw_webhook_lane_depth',
      'voicegw_event_bus_lag_seconds_bucket',
    ]) {
      expect(text).toContain(name);
    }
    expect(await deliveries('delivered', 'call.new')).toBe(1);
  });
});
