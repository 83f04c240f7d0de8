import { createServer, type IncomingMessage } from 'node:http';
import { Agent, request } from 'undici';
import { serveUntilStopped } from './protocol.js';

/**
 * The baseline of the `webhooks` scenario: a bare undici POST loop, in a process of its own as
 * the dispatcher is. The parent POSTs `/run` with the bodies, the receiver's URL, the requests
 * in flight and the keep-alive connections (the dispatcher's: one per app, 32 per origin); it
 * answers when `durationSec` is over with how many requests got a 2xx. No Redis, no signing, no
 * per-app ordering: what any program POSTing the same bodies to the same receiver gets.
 */
interface RunRequest {
  readonly url: string;
  readonly bodies: readonly string[];
  readonly inFlight: number;
  readonly connections: number;
  readonly durationSec: number;
}

async function run(r: RunRequest): Promise<{ ok: number; failed: number; seconds: number }> {
  const agent = new Agent({ connections: r.connections, keepAliveTimeout: 30_000 });
  const started = performance.now();
  const deadline = started + r.durationSec * 1000;
  let ok = 0;
  let failed = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: r.inFlight }, async () => {
      while (performance.now() < deadline) {
        const body = r.bodies[next++ % r.bodies.length] ?? '{}';
        try {
          const response = await request(r.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body,
            dispatcher: agent,
          });
          await response.body.dump();
          if (response.statusCode >= 200 && response.statusCode < 300) ok++;
          else failed++;
        } catch {
          failed++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await agent.close();
  return { ok, failed, seconds };
}

async function readJson(req: IncomingMessage): Promise<RunRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as RunRequest;
}

const server = createServer((req, res) => {
  readJson(req)
    .then(run)
    .then(
      (result) =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result)),
      (err: unknown) => res.writeHead(500).end(String(err)),
    );
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const address = server.address();
if (address === null || typeof address === 'string') throw new Error('raw sender has no TCP port');
serveUntilStopped(address.port, async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
