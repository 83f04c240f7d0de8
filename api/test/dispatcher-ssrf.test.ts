import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Resolver } from '../src/domain/webhook-url.js';
import { DeadLetters } from '../src/webhooks/dead-letters.js';
import { LuaScripts } from '@voicegw/shared';
import { Receiver, TestGateway } from './dispatcher-helpers.js';

let receiver: Receiver;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  receiver = await new Receiver().start();
});
afterEach(async () => {
  await gateway?.close();
  gateway = undefined;
});
afterAll(() => receiver.close());

/** A DNS where `hooks.example.test` (not resolvable for real) has the given addresses. */
const dns =
  (addresses: readonly string[]): Resolver =>
  async (host) => {
    if (host !== 'hooks.example.test') throw new Error(`unexpected lookup of ${host}`);
    return addresses;
  };

/** Publishes one event and returns the dead letter it became. */
async function refusal(
  url: string,
  allow: boolean,
  resolve?: Resolver,
): Promise<{ last_error: string; attempts: number; last_status: number | null }> {
  gateway = new TestGateway();
  await gateway.createApp({ app_id: 'target', webhook_url: url });
  await gateway.dispatcher(
    { ALLOW_LOCALHOST_WEBHOOKS: String(allow), WEBHOOK_RETRY_SCHEDULE: '0,20ms' },
    resolve ? { resolve } : {},
  );
  await gateway.publishSeq('target', 1);
  const letters = new DeadLetters(gateway.redis, new LuaScripts(gateway.redis), gateway.keys);
  await expect.poll(async () => (await letters.list('target', 0, 10)).total).toBe(1);
  const [letter] = (await letters.list('target', 0, 10)).letters;
  return letter as { last_error: string; attempts: number; last_status: number | null };
}

describe('SSRF defence at delivery', () => {
  it('refuses a host name resolving to 127.0.0.1 when ALLOW_LOCALHOST_WEBHOOKS is off', async () => {
    const before = receiver.requests.length;
    const letter = await refusal(
      `http://hooks.example.test:${receiver.port}/hook/target`,
      false,
      dns(['127.0.0.1']),
    );
    expect(letter).toMatchObject({
      attempts: 2,
      last_status: null,
      last_error: 'hooks.example.test resolves to a forbidden address (127.0.0.1)',
    });
    expect(receiver.requests.length).toBe(before);
  });

  it('refuses localhost, resolved by the system, when not allowed', async () => {
    const before = receiver.requests.length;
    const letter = await refusal(`http://localhost:${receiver.port}/hook/target`, false);
    expect(letter.last_error).toMatch(
      /^localhost resolves to a forbidden address \((127\.0\.0\.1|::1)\)$/,
    );
    expect(receiver.requests.length).toBe(before);
  });

  it('refuses a host when any of its addresses is private, and an IP literal in a private range', async () => {
    const mixed = await refusal(
      `https://hooks.example.test/hook/target`,
      false,
      dns(['93.184.216.34', '10.1.2.3']),
    );
    expect(mixed.last_error).toBe('hooks.example.test resolves to a forbidden address (10.1.2.3)');
    await gateway?.close();
    const literal = await refusal(`http://169.254.169.254/latest/meta-data`, false);
    expect(literal.last_error).toBe('169.254.169.254 is a forbidden address');
  });

  it('connects to the address it vetted, keeping the host name in the Host header', async () => {
    gateway = new TestGateway();
    await gateway.createApp({
      app_id: 'named',
      webhook_url: `http://hooks.example.test:${receiver.port}/hook/named`,
    });
    // The system cannot resolve hooks.example.test: the delivery can only have used this answer.
    await gateway.dispatcher({ ALLOW_LOCALHOST_WEBHOOKS: 'true' }, { resolve: dns(['127.0.0.1']) });
    const event = await gateway.publishSeq('named', 1);
    await receiver.until(() => receiver.of('named').length === 1);
    expect(receiver.of('named')[0]?.headers.host).toBe(`hooks.example.test:${receiver.port}`);
    expect(receiver.of('named')[0]?.headers['webhook-id']).toBe(event.event_id);
  });
});
