import { describe, expect, it } from 'vitest';
import { adminRequest } from './helpers.js';
import {
  deadLetters,
  failingApp,
  range,
  sequence,
  useWebhookGateway,
} from './dispatcher-helpers.js';

const { receiver, gateway, api } = useWebhookGateway({
  WEBHOOK_RETRY_SCHEDULE: `0${',100ms'.repeat(30)}`,
  WEBHOOK_DISABLE_AFTER_MS: '500',
});

describe('disabling a failing app', () => {
  it('an app failing for WEBHOOK_DISABLE_AFTER_MS without a success is disabled; POST re-enables it', async () => {
    const { published, heal } = await failingApp(gateway, receiver, 'dying', 3);

    await expect
      .poll(async () => (await adminRequest(api, 'GET', '/admin/apps/dying')).json().disabled, {
        timeout: 5000,
      })
      .toBe(true);
    // Its waiting events were dead-lettered with it, in order; only the first was ever tried.
    await expect.poll(async () => (await deadLetters(api, 'dying')).total).toBe(3);
    const letters = await deadLetters(api, 'dying');
    expect(letters.dead_letters.map((l) => l.event_id)).toEqual(published.map((e) => e.event_id));
    expect(letters.dead_letters.map((l) => l.reason)).toEqual([
      'app_disabled',
      'app_disabled',
      'app_disabled',
    ]);
    expect(new Set(receiver.of('dying').map((r) => r.headers['webhook-id']))).toEqual(
      new Set([published[0]?.event_id]),
    );

    // While disabled, new events go straight to the dead letters and replay is refused.
    const late = await gateway.publishSeq('dying', 4);
    await expect.poll(async () => (await deadLetters(api, 'dying')).total).toBe(4);
    const tried = receiver.of('dying').length;
    const refused = await adminRequest(api, 'POST', '/admin/apps/dying/dead-letters/replay');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toEqual({
      success: false,
      error: 'Application is disabled; POST its configuration to re-enable it',
      code: 'app_disabled',
    });

    // POSTing the configuration re-enables it; a replay then delivers all four, in order.
    heal();
    expect((await adminRequest(api, 'POST', '/admin/apps/dying', {})).statusCode).toBe(200);
    expect((await adminRequest(api, 'GET', '/admin/apps/dying')).json().disabled).toBe(false);
    expect(
      (await adminRequest(api, 'POST', '/admin/apps/dying/dead-letters/replay')).json().replayed,
    ).toBe(4);
    await receiver.until(() => receiver.of('dying').length === tried + 4);
    expect(sequence(receiver.of('dying').slice(tried))).toEqual([1, 2, 3, 4]);
    expect(receiver.of('dying').at(-1)?.headers['webhook-id']).toBe(late.event_id);
    // The success cleared the failure bookkeeping: failing again starts a new count.
    expect(await gateway.redis.hget(gateway.keys.app('dying'), 'webhook_failing_since')).toBeNull();
  });

  it('a success in between keeps a flaky app enabled', async () => {
    await gateway.createApp({ app_id: 'wobbly', webhook_url: receiver.url('wobbly') });
    // Every event fails once, then succeeds: failures for over a second in all, but never
    // 500 ms of them without a success.
    const seen = new Set<string>();
    receiver.respond('wobbly', (r) => {
      const id = String(r.headers['webhook-id']);
      const first = !seen.has(id);
      seen.add(id);
      return { status: first ? 500 : 200 };
    });
    for (const seq of range(8)) {
      await gateway.publishSeq('wobbly', seq);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    await receiver.until(() => receiver.of('wobbly').length === 16, 10_000);
    expect(sequence(receiver.of('wobbly'))).toEqual(range(8));
    expect((await adminRequest(api, 'GET', '/admin/apps/wobbly')).json().disabled).toBe(false);
  });
});
