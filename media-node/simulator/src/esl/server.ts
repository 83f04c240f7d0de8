// The event-socket TCP server (FreeSWITCH's port 8021): one Listener per connection.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Logger } from '@voicegw/shared';
import type { SimSwitch } from '../core/switch.js';
import { Listener } from './listener.js';

export interface EslServer {
  readonly port: number;
  close(): Promise<void>;
}

export async function startEslServer(
  sw: SimSwitch,
  opts: { host: string; port: number; password: string; log: Logger },
): Promise<EslServer> {
  const listeners = new Set<Listener>();
  const server: Server = createServer((socket: Socket) => {
    const listener = new Listener(socket, sw, opts.password, opts.log);
    listeners.add(listener);
    socket.on('close', () => listeners.delete(listener));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  opts.log.info({ host: opts.host, port }, 'event socket listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const l of listeners) l.close();
        server.close(() => resolve());
      }),
  };
}
