import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@voicegw/shared';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The dispatcher's operator endpoints: GET /metrics (Prometheus text) and GET /health (200
 * `{status:"ok", partitions, routing}` while Redis is reachable, else 503); nothing else.
 */
export async function startMetricsServer(
  registry: Registry,
  health: () => {
    readonly ok: boolean;
    readonly partitions: readonly string[];
    readonly routing: boolean;
  },
  options: { readonly host: string; readonly port: number },
  log: Logger,
): Promise<MetricsServer> {
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
      const { ok, partitions, routing } = health();
      res
        .writeHead(ok ? 200 : 503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: ok ? 'ok' : 'redis_unreachable', partitions, routing }));
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
