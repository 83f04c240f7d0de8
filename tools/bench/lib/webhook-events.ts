import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyedMailbox } from '@voicegw/simulator/client';
import { eventKeys, type GatewayEvent, type GatewayEvents } from './event-watcher.js';

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * The gateway's events as an application gets them: the webhook endpoint of every app (node:http
 * on loopback answering 204, in the load generator's process), handing each event to whoever
 * waits for it by its keys (`eventKeys`), as the EventWatcher does from the ingest stream. With
 * it the dispatcher is the stream's only reader, as in production.
 */
export class WebhookEvents implements GatewayEvents {
  private readonly mailbox = new KeyedMailbox<GatewayEvent>();
  read = 0;

  private constructor(
    private readonly server: Server,
    /** The `webhook_url` of every app. */
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookEvents> {
    const server = createServer();
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const events = new WebhookEvents(server, `http://127.0.0.1:${port}/hook`);
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(204).end();
        events.deliver(JSON.parse(Buffer.concat(chunks).toString('utf8')) as GatewayEvent);
      });
    });
    return events;
  }

  once(key: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<GatewayEvent> {
    return this.mailbox.once(key, timeoutMs);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private deliver(event: GatewayEvent): void {
    this.read++;
    this.mailbox.deliver(eventKeys(event), event);
  }
}
