// An application's media stream server for the end-to-end tests: a real `ws` WebSocket server
// on loopback that records each connection's upgrade request and the frames it receives, and
// can refuse upgrades with an HTTP status by path; and stream/start as an app sends it.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { expect } from 'vitest';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import type { Stack, Tenant } from './harness.js';

/** A frame the gateway sent, as JSON. */
export type Frame = Record<string, unknown> & { event: string };

/** One connection from the gateway. */
export class AppConnection {
  readonly frames: Frame[] = [];
  /** When each frame arrived (performance.now()), index for index with `frames`. */
  readonly arrivals: number[] = [];
  /** The close code, once closed. */
  closeCode: number | undefined;
  private waiters: Array<() => void> = [];

  constructor(
    readonly path: string,
    readonly headers: IncomingHttpHeaders,
    readonly socket: WebSocket,
  ) {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary) return;
      const text = Buffer.isBuffer(data)
        ? data
        : Array.isArray(data)
          ? Buffer.concat(data)
          : Buffer.from(data);
      this.frames.push(JSON.parse(text.toString('utf8')) as Frame);
      this.arrivals.push(performance.now());
      this.wake();
    });
    socket.on('close', (code: number) => {
      this.closeCode = code;
      this.wake();
    });
    socket.on('error', () => undefined);
  }

  /** The frames of one event so far. */
  of(event: string): Frame[] {
    return this.frames.filter((f) => f.event === event);
  }

  /** Waits until `ready()` holds (checked on every frame and at close). */
  until<T>(ready: () => T | undefined | false, timeoutMs = 5000, what = 'frames'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const check = (): boolean => {
        const value = ready();
        if (value === undefined || value === false) return false;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(value);
        return true;
      };
      const waiter = (): void => void check();
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) this.waiters.push(waiter);
    });
  }

  /** The first frame of `event` (already received or still to come). */
  next(event: string, timeoutMs?: number): Promise<Frame> {
    return this.until(() => this.of(event)[0], timeoutMs, `${event} frame`);
  }

  /** The close code, once the gateway closed (or the socket went). */
  closed(timeoutMs?: number): Promise<number> {
    return this.until(() => this.closeCode, timeoutMs, 'close');
  }

  send(frame: unknown): void {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }
}

export class StreamApp {
  readonly connections: AppConnection[] = [];
  /** Paths answered with this HTTP status instead of an upgrade. */
  readonly refuse = new Map<string, number>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private waiters: Array<(c: AppConnection) => void> = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {
    server.on('upgrade', (req, socket: Duplex, head) => {
      const path = req.url ?? '/';
      const status = this.refuse.get(path);
      if (status !== undefined) {
        socket.end(`HTTP/1.1 ${status} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const connection = new AppConnection(path, req.headers, ws);
        this.connections.push(connection);
        for (const waiter of this.waiters.splice(0)) waiter(connection);
      });
    });
  }

  static async start(): Promise<StreamApp> {
    const server = createServer((_req, res) => res.writeHead(426).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new StreamApp(server, (server.address() as AddressInfo).port);
  }

  /** `ws://127.0.0.1:<port><path>`; `host` may name it otherwise (`localhost`). */
  url(path = '/agent', host = '127.0.0.1'): string {
    return `ws://${host}:${this.port}${path}`;
  }

  /** The connection whose upgrade named this stream id (made or still to come). */
  connection(streamId: string, timeoutMs = 5000): Promise<AppConnection> {
    const match = (c: AppConnection) => c.headers['x-voicegw-stream-id'] === streamId;
    const made = this.connections.find(match);
    if (made) return Promise.resolve(made);
    return new Promise<AppConnection>((resolve, reject) => {
      const waiter = (c: AppConnection): void => {
        if (!match(c)) {
          this.waiters.push(waiter);
          return;
        }
        clearTimeout(timer);
        resolve(c);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no connection for stream ${streamId} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Connections still open. */
  get open(): number {
    return [...this.wss.clients].filter((c) => c.readyState === WebSocket.OPEN).length;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

/**
 * stream/start through the api; the 1 s cooldown that start and stop share is waited out as a
 * client would (the cooldown has tests of its own in the api).
 */
export async function startStream(
  on: Stack,
  as: Tenant,
  session: string,
  body: Record<string, unknown>,
): Promise<{ streamId: string; uid: string }> {
  const uid = `s-${randomUUID().slice(0, 8)}`;
  const res = await on.commandAfterCooldown(as, session, 'stream/start', {
    command_uid: uid,
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  return { streamId: String(res.body.operation_id), uid };
}
