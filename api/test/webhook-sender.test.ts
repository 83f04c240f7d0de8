import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../src/webhooks/sender.js';

/** What the receiver does with one request: its handler is swapped per test. */
type Respond = (req: IncomingMessage, body: Buffer, res: ServerResponse) => void;

interface Received {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

let server: Server;
let origin: string;
let respond: Respond;
const received: Received[] = [];
const sockets = new Set<Socket>();

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      received.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      respond(req, body, res);
    });
  });
  server.on('connection', (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let sender: WebhookSender;
const newSender = (options: Partial<ConstructorParameters<typeof WebhookSender>[0]> = {}) =>
  new WebhookSender({ timeoutMs: 2000, allowPrivate: true, connectionsPerOrigin: 4, ...options });

afterEach(async () => {
  await sender.close();
  received.length = 0;
  server.closeAllConnections();
  sockets.clear();
});

const json = Buffer.from('{"event":"call.new","text":"שלום"}');
const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_1' };
const answer =
  (status: number, extra: Record<string, string> = {}, body = ''): Respond =>
  (_req, _body, res) =>
    res.writeHead(status, extra).end(body);

/** Sends the test webhook to `path` on the receiver. */
const sendTo = (path: string) => sender.send(`${origin}${path}`, headers, json);

describe('WebhookSender', () => {
  it('POSTs the bytes and headers given to the URL, path and query included, and a 2xx is delivered', async () => {
    sender = newSender();
    respond = answer(204);
    const result = await sendTo('/hooks/app?tenant=7');
    expect(result).toEqual({ kind: 'delivered', status: 204 });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'POST', url: '/hooks/app?tenant=7' });
    expect(received[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': 'evt_1',
      'content-length': String(json.length),
    });
    expect(received[0]?.body.equals(json)).toBe(true);
  });

  it('reads an answer body to its end and keeps the connection for the next webhook', async () => {
    sender = newSender({ connectionsPerOrigin: 1 });
    respond = answer(200, { 'content-type': 'text/plain' }, 'x'.repeat(20_000));
    expect(await sendTo('/a')).toEqual({ kind: 'delivered', status: 200 });
    respond = answer(202);
    expect(await sendTo('/b')).toEqual({ kind: 'delivered', status: 202 });
    expect(sockets.size).toBe(1);
  });

  it('cuts off an answer body beyond 64 KiB with its connection; the status still counts', async () => {
    sender = newSender({ connectionsPerOrigin: 1 });
    respond = answer(200, { 'content-type': 'text/plain' }, 'x'.repeat(1_000_000));
    expect(await sendTo('/a')).toEqual({ kind: 'delivered', status: 200 });
    respond = answer(500, { 'content-type': 'text/plain' }, 'x'.repeat(1_000_000));
    expect(await sendTo('/b')).toEqual({ kind: 'failed', status: 500, error: 'HTTP 500' });
    expect(sockets.size).toBe(2);
  });

  it('tells 410 Gone apart from other failures, and follows no redirect', async () => {
    sender = newSender();
    respond = answer(410);
    expect(await sendTo('/gone')).toEqual({ kind: 'gone', status: 410 });
    respond = answer(302, { location: `${origin}/elsewhere` });
    expect(await sendTo('/moved')).toEqual({ kind: 'failed', status: 302, error: 'HTTP 302' });
    respond = answer(500, { 'retry-after': '30' });
    expect(await sendTo('/broken')).toEqual({ kind: 'failed', status: 500, error: 'HTTP 500' });
    expect(received.map((r) => r.url)).toEqual(['/gone', '/moved', '/broken']);
  });

  it('keeps Retry-After of a 429 (seconds) and of a 503 (HTTP date)', async () => {
    sender = newSender();
    respond = answer(429, { 'retry-after': '7' });
    expect(await sendTo('/busy')).toEqual({
      kind: 'failed',
      status: 429,
      error: 'HTTP 429',
      retryAfterMs: 7000,
    });
    respond = answer(503, { 'retry-after': new Date(Date.now() + 60_000).toUTCString() });
    const result = await sendTo('/down');
    expect(result).toMatchObject({ kind: 'failed', status: 503, error: 'HTTP 503' });
    const retryAfterMs = result.kind === 'failed' ? result.retryAfterMs : undefined;
    expect(retryAfterMs).toBeGreaterThan(55_000);
    expect(retryAfterMs).toBeLessThanOrEqual(60_000);
  });

  it('gives up on a receiver that does not answer within the timeout', async () => {
    sender = newSender({ timeoutMs: 150 });
    respond = () => undefined; // never answers
    expect(await sendTo('/slow')).toEqual({
      kind: 'failed',
      status: null,
      error: 'no response within 150 ms',
    });
  });

  it('ends an attempt whose answer body trickles at its one deadline, and closes the connection', async () => {
    // A byte every 50 ms never trips undici's per-chunk body timeout; the body would end at 3 s.
    const closed: number[] = [];
    const trickle =
      (status: number): Respond =>
      (_req, _body, res) => {
        res.writeHead(status, { 'content-length': '1000' });
        const timer = setInterval(() => res.write('.'), 50);
        setTimeout(() => res.end(), 3000).unref();
        res.on('close', () => {
          clearInterval(timer);
          closed.push(Date.now());
        });
      };
    sender = newSender({ timeoutMs: 400 });
    for (const [status, result] of [
      [503, { kind: 'failed', status: 503, error: 'HTTP 503' }],
      // A 2xx status line has taken the webhook (see the next test): delivered, not held.
      [200, { kind: 'delivered', status: 200 }],
    ] as const) {
      respond = trickle(status);
      const started = Date.now();
      expect(await sendTo('/trickle')).toEqual(result);
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(390);
      expect(took).toBeLessThan(1500);
      // The receiver sees its connection closed at the deadline, not after its 3 s body.
      await expect.poll(() => closed.length).toBe(status === 503 ? 1 : 2);
      expect(closed.at(-1)! - started).toBeLessThan(1500);
    }
  });

  it('judges by the status line when the connection drops mid-answer, and fails one dropped before it', async () => {
    sender = newSender();
    const dropAfter =
      (status: number): Respond =>
      (_req, _body, res) => {
        res.writeHead(status, { 'content-length': '100' });
        res.write('partial');
        setTimeout(() => res.socket?.destroy(), 20);
      };
    respond = dropAfter(200);
    expect(await sendTo('/drop')).toEqual({ kind: 'delivered', status: 200 });
    respond = dropAfter(502);
    expect(await sendTo('/drop')).toMatchObject({ kind: 'failed', status: 502 });
    respond = (req) => req.socket.destroy();
    const reset = await sendTo('/reset');
    expect(reset).toMatchObject({ kind: 'failed', status: null });
    expect(reset.kind === 'failed' && reset.error).toMatch(/socket|closed|reset/i);
  });

  it('reports a port nobody listens on', async () => {
    sender = newSender();

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const refused = await sender.send(`http://127.0.0.1:${port}/hook`, headers, json);
    expect(refused).toMatchObject({ kind: 'failed', status: null });
    expect(refused.kind === 'failed' && refused.error).toMatch(/^ECONNREFUSED: /);
  });

  it('refuses a forbidden IP literal unless private addresses are allowed, and an unparseable URL', async () => {
    sender = newSender({ allowPrivate: false });
    respond = answer(204);
    expect(await sendTo('/hook')).toEqual({
      kind: 'failed',
      status: null,
      error: '127.0.0.1 is a forbidden address',
    });
    expect(await sender.send('http://[::1]:9/hook', headers, json)).toEqual({
      kind: 'failed',
      status: null,
      error: '::1 is a forbidden address',
    });
    expect(await sender.send('not a url', headers, json)).toEqual({
      kind: 'failed',
      status: null,
      error: 'invalid webhook_url',
    });
    expect(received).toHaveLength(0);
  });
});
