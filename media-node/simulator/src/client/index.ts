// The event-socket client that tests and the benchmark drive a simulator (or a FreeSWITCH) with,
// over real TCP through modesl, and a helper for the simulator's control API (package subpath
// @voicegw/simulator/client).
import { createRequire } from 'node:module';
import type { Simulator } from '../index.js';

// modesl ships no types; this is the part of its surface the tests use.
interface ModeslEvent {
  headers: Array<{ name: string; value: string }>;
  getHeader(name: string): string | undefined;
  getBody(): string;
}
interface ModeslConnection {
  on(name: string, fn: (ev: ModeslEvent, headers: Record<string, unknown>) => void): void;
  once(name: string, fn: (ev: ModeslEvent) => void): void;
  api(cmd: string, cb: (ev: ModeslEvent) => void): void;
  bgapi(cmd: string, cb: (ev: ModeslEvent) => void): void;
  sendRecv(cmd: string, args: Record<string, string> | null, cb: (ev: ModeslEvent) => void): void;
  send(cmd: string, args?: Record<string, string>): void;
  disconnect(): void;
  socket: { destroy(): void } | null;
}
interface Modesl {
  Connection: new (
    host: string,
    port: number,
    password: string,
    ready: () => void,
  ) => ModeslConnection;
}
const esl = createRequire(import.meta.url)('modesl') as Modesl;

export type Ev = Record<string, string> & { _body?: string };

/** A modesl client subscribed to `event <format> <events>` (ALL), recording every event it receives. */
export class EslClient {
  readonly events: Ev[] = [];
  private waiters: Array<{ pred: (e: Ev) => boolean; resolve: (e: Ev) => void }> = [];

  private constructor(readonly conn: ModeslConnection) {
    // The simulator closing its sockets at the end of a test is expected.
    conn.on('error', () => undefined);
    conn.on('esl::event::**', (ev, headers) => {
      const type = typeof headers['Content-Type'] === 'string' ? headers['Content-Type'] : '';
      if (!type.startsWith('text/event-')) return;
      const rec: Ev = Object.fromEntries(ev.headers.map((h) => [h.name, String(h.value)]));
      const body = ev.getBody();
      if (body) rec._body = body;
      this.events.push(rec);
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(rec)) return true;
        w.resolve(rec);
        return false;
      });
    });
  }

  static async connect(
    port: number,
    format: 'json' | 'plain' = 'json',
    events = 'ALL',
  ): Promise<EslClient> {
    const conn = await new Promise<ModeslConnection>((resolve) => {
      const c: ModeslConnection = new esl.Connection('127.0.0.1', port, 'ClueCon', () =>
        resolve(c),
      );
    });
    const client = new EslClient(conn);
    await client.command(`event ${format} ${events}`);
    return client;
  }

  command(line: string, args: Record<string, string> | null = null): Promise<string> {
    return new Promise((resolve) =>
      this.conn.sendRecv(line, args, (ev) => resolve(ev.getHeader('Reply-Text') ?? '')),
    );
  }

  api(cmd: string): Promise<string> {
    return new Promise((resolve) => this.conn.api(cmd, (ev) => resolve(ev.getBody())));
  }

  /** bgapi and its BACKGROUND_JOB body. */
  bgapi(cmd: string): Promise<string> {
    return new Promise((resolve) => this.conn.bgapi(cmd, (ev) => resolve(ev.getBody())));
  }

  execute(
    uuid: string,
    app: string,
    arg: string,
    eventUuid: string,
    lock = false,
  ): Promise<string> {
    const headers: Record<string, string> = {
      'call-command': 'execute',
      'execute-app-name': app,
      'execute-app-arg': arg,
    };
    if (lock) headers['event-lock'] = 'true';
    headers['Event-UUID'] = eventUuid;
    return this.command(`sendmsg ${uuid}`, headers);
  }

  /** The first recorded or future event matching `pred`. */
  waitFor(pred: (e: Ev) => boolean, timeoutMs = 8000): Promise<Ev> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('timed out waiting for event')), timeoutMs);
      this.waiters.push({
        pred,
        resolve: (e) => {
          clearTimeout(timer);
          resolve(e);
        },
      });
    });
  }

  waitEvent(name: string, uuid?: string, extra: (e: Ev) => boolean = () => true): Promise<Ev> {
    return this.waitFor(
      (e) => e['Event-Name'] === name && (!uuid || e['Unique-ID'] === uuid) && extra(e),
    );
  }

  /** Events of one channel since index `from`, as names (CUSTOM as CUSTOM(subclass)). */
  sequence(uuid: string, from = 0, skip: string[] = ['CHANNEL_STATE', 'API']): string[] {
    return this.channelEvents(uuid, from, skip).map((e) => name(e));
  }

  /** Every event of one channel as `sequence` names it, with its application: `CHANNEL_EXECUTE(park)`. */
  trail(uuid: string): string[] {
    return this.channelEvents(uuid).map((e) =>
      e.Application ? `${name(e)}(${e.Application})` : name(e),
    );
  }

  private channelEvents(uuid: string, from = 0, skip = ['CHANNEL_STATE', 'API']): Ev[] {
    return this.events
      .slice(from)
      .filter((e) => e['Unique-ID'] === uuid && !skip.includes(e['Event-Name'] ?? ''));
  }

  close(): void {
    this.conn.disconnect();
  }
}

export function name(e: Ev): string {
  const n = e['Event-Name'] ?? '';
  return n === 'CUSTOM' ? `CUSTOM(${e['Event-Subclass']})` : n;
}

/** A request to the simulator's control API; the reply's status and JSON body. */
export async function control(
  sim: Simulator,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(sim.controlUrl + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}
