import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createWebhookHandler,
  verifyWebhook,
  WebhookVerificationError,
  type WebhookEvent,
} from '../src/index.js';

// verifyWebhook and createWebhookHandler on webhooks signed the Standard Webhooks way (the
// gateway's own deliveries are in stack.test.ts).

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const event = {
  event: 'call.hangup',
  session_uuid: 'abcde-00000000-0000-4000-8000-000000000000',
  hangup_cause: 'completed',
  duration_seconds: 3,
  event_id: '0190d1a2-0000-7000-8000-000000000001',
  app_id: 'app_1',
  timestamp: '2026-01-01T00:00:00.000Z',
};

function signed(body: string, key = secret, at = new Date()): Record<string, string> {
  const id = 'msg_1';
  return {
    'webhook-id': id,
    'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
    'webhook-signature': new Webhook(key).sign(id, at, body),
  };
}

describe('verifyWebhook', () => {
  const body = JSON.stringify(event);

  it('returns the typed event of a webhook signed with the secret', () => {
    const verified = verifyWebhook(body, signed(body), secret);
    expect(verified).toEqual(event);
    if (verified.event !== 'call.hangup') throw new Error('not narrowed');
    const cause: 'completed' | 'busy' | 'rejected' | 'no_answer' | 'unavailable' | 'failed' =
      verified.hangup_cause;
    expect(cause).toBe('completed');
  });

  it('accepts bytes and fetch Headers', () => {
    const headers = new Headers(signed(body));
    expect(verifyWebhook(new TextEncoder().encode(body), headers, secret)).toEqual(event);
  });

  it.each([
    [
      'a tampered body',
      body.replace('"duration_seconds":3', '"duration_seconds":30'),
      signed(body),
      secret,
    ],
    ['another secret', body, signed(body, `whsec_${randomBytes(24).toString('base64')}`), secret],
    [
      'a timestamp 10 minutes old',
      body,
      signed(body, secret, new Date(Date.now() - 600_000)),
      secret,
    ],
    ['no signature header', body, { ...signed(body), 'webhook-signature': undefined }, secret],
    ['a body that is not an event', '[1]', signed('[1]'), secret],
  ])('throws WebhookVerificationError for %s', (_what, raw, headers, key) => {
    expect(() => verifyWebhook(raw, headers, key)).toThrow(WebhookVerificationError);
  });
});

describe('createWebhookHandler', () => {
  let server: Server;
  let url: string;
  const handled: WebhookEvent[] = [];
  const seenFirst: string[] = [];

  beforeAll(async () => {
    const handler = createWebhookHandler(secret, {
      '*': (e) => void seenFirst.push(e.event),
      'call.hangup': (e) => void handled.push(e),
      dtmf: () => {
        throw new Error('boom');
      },
    });
    server = createServer((req, res) => void handler(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = (body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', headers, body });

  it('answers 204 and runs the handler of a verified event', async () => {
    const body = JSON.stringify(event);
    const res = await post(body, signed(body));
    expect(res.status).toBe(204);
    expect(handled).toEqual([event]);
    expect(seenFirst).toContain('call.hangup');
  });

  it('answers 204 to an event it has no handler for', async () => {
    const body = JSON.stringify({ ...event, event: 'call.answered', hangup_cause: undefined });
    expect((await post(body, signed(body))).status).toBe(204);
  });

  it('answers 400 to a bad signature, without running a handler', async () => {
    const body = JSON.stringify(event);
    const before = handled.length;
    const res = await post(body, signed('{}'));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ success: false, error: expect.any(String) });
    expect(handled).toHaveLength(before);
  });

  it('answers 500 when the handler throws, so the gateway delivers it again', async () => {
    const body = JSON.stringify({ ...event, event: 'dtmf', digit: '1', duration_ms: 100 });
    expect((await post(body, signed(body))).status).toBe(500);
  });

  it('answers 405 to another method and 413 to a huge body', async () => {
    expect((await fetch(url)).status).toBe(405);
    const huge = 'x'.repeat(1024 * 1024 + 1);
    expect((await post(huge, signed(huge))).status).toBe(413);
  });
});
