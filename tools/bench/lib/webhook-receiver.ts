import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The webhook endpoint of the `webhooks` scenario: node:http on loopback answering 204 to every
 * POST. It counts requests (and when the count crossed given marks) and, when asked to, hands
 * the `operation_id` of each `command.result` to a listener as its request ends.
 */
export class WebhookReceiver {
  received = 0;
  /** operation_id → its waiter, or when it arrived before anyone waited for it. */
  private readonly results = new Map<string, ((at: number) => void) | number>();
  private readonly marks: { at: number; resolve: (ms: number) => void }[] = [];
  parseResults = false;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<WebhookReceiver> {
    const server = createServer();
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(
      server,
      `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    );
    server.on('request', (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        res.writeHead(204).end();
        // Timed when the request has arrived, before anything else the receiver does.
        receiver.arrived(receiver.parseResults ? Buffer.concat(chunks).toString('utf8') : '');
      });
    });
    return receiver;
  }

  /** Resolves with performance.now() when the `n`th request (counted from start) has arrived. */
  reached(n: number): Promise<number> {
    if (this.received >= n) return Promise.resolve(performance.now());
    return new Promise((resolve) => this.marks.push({ at: n, resolve }));
  }

  /** performance.now() when the `command.result` of `operationId` arrived (set `parseResults`). */
  result(operationId: string, timeoutMs: number): Promise<number> {
    const early = this.results.get(operationId);
    if (typeof early === 'number') {
      this.results.delete(operationId);
      return Promise.resolve(early);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.results.delete(operationId);
        reject(new Error(`no command.result webhook for ${operationId} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.results.set(operationId, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private arrived(body: string): void {
    this.received++;
    if (this.marks.length > 0) {
      const now = performance.now();
      for (const mark of this.marks.filter((m) => m.at <= this.received)) mark.resolve(now);
      this.marks.splice(0, this.marks.length, ...this.marks.filter((m) => m.at > this.received));
    }
    if (body === '') return;
    const event = JSON.parse(body) as { event?: string; operation_id?: string };
    if (event.event !== 'command.result' || event.operation_id === undefined) return;
    const waiter = this.results.get(event.operation_id);
    if (typeof waiter === 'function') {
      this.results.delete(event.operation_id);
      waiter(performance.now());
    } else this.results.set(event.operation_id, performance.now());
  }
}
