import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Ledger } from './ledger.js';
import { toneWav } from './wav.js';

/** Longest wait k6 may ask for on GET /receipts/{command_uid}. */
const MAX_WAIT_MS = 30_000;
/** Audio files served are cached by duration. */
const tones = new Map<number, Buffer>();

const HOOK = /^\/hooks\/([A-Za-z0-9_-]{1,64})$/;
const SECRET = /^\/apps\/([A-Za-z0-9_-]{1,64})\/secret$/;
const RECEIPT = /^\/receipts\/([A-Za-z0-9._-]{1,128})$/;
const TONE = /^\/audio\/tone-(\d{1,6})ms\.wav$/;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const header = (req: IncomingMessage, name: string): string | undefined => {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * The receiver's HTTP surface (loadtest/README.md): webhook target, per-app secrets, receipts
 * for k6, statistics, and prompt audio for the scenarios that play one.
 */
async function route(ledger: Ledger, req: IncomingMessage, res: ServerResponse): Promise<void> {
  // Taken before the body is read: the arrival of the request is what the latency ends at.
  const arrivedAt = performance.timeOrigin + performance.now();
  const url = new URL(req.url ?? '/', 'http://receiver');
  const path = url.pathname;
  let match: RegExpExecArray | null;

  if (req.method === 'POST' && (match = HOOK.exec(path))) {
    const body = await readBody(req);
    ledger.record({
      appId: match[1] ?? '',
      arrivedAt,
      body,
      headers: {
        'webhook-id': header(req, 'webhook-id'),
        'webhook-timestamp': header(req, 'webhook-timestamp'),
        'webhook-signature': header(req, 'webhook-signature'),
      },
    });
    res.writeHead(200).end();
    return;
  }
  if (req.method === 'PUT' && (match = SECRET.exec(path))) {
    const body = JSON.parse(await readBody(req)) as { secret?: unknown };
    if (typeof body.secret !== 'string' || !body.secret.startsWith('whsec_')) {
      json(res, 400, { error: 'secret must be the app’s whsec_… webhook_secret' });
      return;
    }
    ledger.setSecret(match[1] ?? '', body.secret);
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && (match = RECEIPT.exec(path))) {
    const wait = Math.min(MAX_WAIT_MS, Math.max(0, Number(url.searchParams.get('wait_ms') ?? 0)));
    const receipt = await ledger.wait(match[1] ?? '', Number.isFinite(wait) ? wait : 0);
    if (receipt) json(res, 200, receipt);
    else json(res, 404, { error: 'no command.result for this command_uid yet' });
    return;
  }
  if (req.method === 'GET' && (match = TONE.exec(path))) {
    const ms = Math.max(20, Number(match[1]));
    const wav = tones.get(ms) ?? toneWav(ms);
    tones.set(ms, wav);
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': wav.length }).end(wav);
    return;
  }
  if (req.method === 'GET' && path === '/stats') return json(res, 200, ledger.stats());
  if (req.method === 'POST' && path === '/reset') {
    ledger.reset();
    res.writeHead(204).end();
    return;
  }
  if (req.method === 'GET' && path === '/health') return json(res, 200, { status: 'ok' });
  json(res, 404, { error: 'not found' });
}

export interface ReceiverServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startReceiver(
  ledger: Ledger,
  options: { readonly host: string; readonly port: number },
): Promise<ReceiverServer> {
  const server: Server = createServer((req, res) => {
    route(ledger, req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 400, { error: String(err) });
    });
  });
  // The dispatcher keeps connections alive per origin; do not close them under it.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
