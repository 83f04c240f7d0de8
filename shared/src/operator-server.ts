import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.js';

/** What a process says on GET /health: 200 when `ok`, else 503, with `body` as JSON. */
export interface HealthReport {
  readonly ok: boolean;
  readonly body: Record<string, unknown>;
}

export interface OperatorServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The operator endpoints of a process without an HTTP API of its own (media node, dispatcher):
 * GET /metrics (Prometheus text) and GET /health; nothing else is served.
 */
export async function startOperatorServer(
  registry: Registry,
  health: () => HealthReport,
  options: { readonly host: string; readonly port: number },
  log: Logger,
): Promise<OperatorServer> {
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/metrics') {
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => {
          log.warn({ err }, 'metrics failed');
          res.writeHead(500).end();
        },
      );
      return;
    }
    if (req.method === 'GET' && req.url === '/health') {
      const { ok, body } = health();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify(body));
      return;
    }
    res.writeHead(404).end();
  });
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
