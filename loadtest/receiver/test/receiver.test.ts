import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ledger } from '../ledger.js';
import { startReceiver, type ReceiverServer } from '../server.js';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
let server: ReceiverServer;
let base: string;

beforeAll(async () => {
  server = await startReceiver(new Ledger(), { host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${server.port}`;
  const res = await fetch(`${base}/apps/app_a/secret`, {
    method: 'PUT',
    body: JSON.stringify({ secret }),
  });
  expect(res.status).toBe(204);
});

afterAll(() => server.close());

let seq = 0;

/** A delivery as the dispatcher makes it: the envelope, signed with Standard Webhooks headers. */
async function deliver(
  appId: string,
  event: Record<string, unknown>,
  options: { id?: string; signWith?: string } = {},
): Promise<number> {
  const id = options.id ?? `evt_${++seq}`;
  const body = JSON.stringify({ event_id: id, app_id: appId, ...event });
  const at = new Date();
  const res = await fetch(`${base}/hooks/${appId}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(options.signWith ?? secret).sign(id, at, body),
    },
    body,
  });
  return res.status;
}

const stats = async () =>
  (await (await fetch(`${base}/stats`)).json()) as {
    received: number;
    duplicates: number;
    out_of_order: number;
    signatures: { valid: number; invalid: number; unchecked: number };
  };

describe('loadtest receiver', () => {
  it('hands k6 the receipt of a command: POST time from the command_uid to arrival', async () => {
    const sentAt = Date.now() - 40;
    const uid = `wl.${sentAt}.1.1`;
    const waiting = fetch(`${base}/receipts/${uid}?wait_ms=3000`);
    const published = new Date(Date.now() - 15).toISOString();
    const status = await deliver('app_a', {
      event: 'command.result',
      session_uuid: 'abcde-s1',
      operation_id: 'op-1',
      command: 'call.answer',
      command_uid: uid,
      success: true,
      timestamp: published,
    });
    expect(status).toBe(200);
    const res = await waiting;
    expect(res.status).toBe(200);
    const receipt = (await res.json()) as Record<string, unknown>;
    expect(receipt).toMatchObject({ command_uid: uid, operation_id: 'op-1', signature: 'valid' });
    expect(receipt.e2e_ms).toBeGreaterThanOrEqual(40);
    expect(receipt.delivery_ms).toBeGreaterThanOrEqual(15);
    expect(receipt.deliveries).toBe(1);
  });

  it('answers 404 for a command whose webhook does not arrive in time', async () => {
    const res = await fetch(`${base}/receipts/wl.${Date.now()}.9.9?wait_ms=50`);
    expect(res.status).toBe(404);
  });

  it('counts a signature made with another secret as invalid', async () => {
    const before = await stats();
    const other = `whsec_${randomBytes(24).toString('base64')}`;
    await deliver(
      'app_a',
      { event: 'dtmf', timestamp: new Date().toISOString() },
      { signWith: other },
    );
    expect((await stats()).signatures.invalid).toBe(before.signatures.invalid + 1);
  });

  it('leaves deliveries of an app without a secret unchecked', async () => {
    const before = await stats();
    await deliver('app_b', { event: 'call.new', timestamp: new Date().toISOString() });
    expect((await stats()).signatures.unchecked).toBe(before.signatures.unchecked + 1);
  });

  it('counts a second delivery with the same webhook-id as a duplicate of that receipt', async () => {
    const uid = `wl.${Date.now()}.2.2`;
    const event = {
      event: 'command.result',
      session_uuid: 'abcde-s2',
      command_uid: uid,
      timestamp: new Date().toISOString(),
    };
    await deliver('app_a', event, { id: 'evt_retried' });
    await deliver('app_a', event, { id: 'evt_retried' });
    const receipt = (await (await fetch(`${base}/receipts/${uid}`)).json()) as {
      deliveries: number;
    };
    expect(receipt.deliveries).toBe(2);
    expect((await stats()).duplicates).toBeGreaterThanOrEqual(1);
  });

  it('counts an event of a session published before one already delivered as out of order', async () => {
    const before = await stats();
    const now = Date.now();
    await deliver('app_a', {
      event: 'call.answered',
      session_uuid: 'abcde-s3',
      timestamp: new Date(now).toISOString(),
    });
    await deliver('app_a', {
      event: 'call.new',
      session_uuid: 'abcde-s3',
      timestamp: new Date(now - 500).toISOString(),
    });
    expect((await stats()).out_of_order).toBe(before.out_of_order + 1);
  });

  it('serves a WAV prompt whose header gives its length', async () => {
    const res = await fetch(`${base}/audio/tone-500ms.wav`);
    expect(res.status).toBe(200);
    const wav = Buffer.from(await res.arrayBuffer());
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.readUInt32LE(40) / (8000 * 2)).toBe(0.5);
  });
});
