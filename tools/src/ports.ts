import { createServer, type AddressInfo, type Server } from 'node:net';

const listenOnAnyPort = (): Promise<Server> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });

const close = (server: Server): Promise<void> =>
  new Promise((resolve) => server.close(() => resolve()));

/**
 * Loopback ports free now, one per name, all distinct. Every probe stays bound until the last is,
 * so the kernel cannot hand one port out twice: a probe closed before the next bind can be given
 * again, and two processes of one test then race for it (EADDRINUSE).
 */
export async function freePorts<N extends string>(...names: N[]): Promise<Record<N, number>> {
  const servers: Server[] = [];
  const ports = {} as Record<N, number>;
  try {
    for (const name of names) {
      const server = await listenOnAnyPort();
      servers.push(server);
      ports[name] = (server.address() as AddressInfo).port;
    }
    return ports;
  } finally {
    await Promise.all(servers.map(close));
  }
}

/** A loopback port free now. Ask `freePorts` for several at once: separate calls may repeat one. */
export async function freePort(): Promise<number> {
  return (await freePorts('port')).port;
}
