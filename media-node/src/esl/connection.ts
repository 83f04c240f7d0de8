import { EventEmitter } from 'node:events';
import type { Logger } from '@voicegw/shared';
import type { EventSubscription, FsEvent } from './event.js';
import { takeJsonEvents } from './json-events.js';
import { modesl, type ModeslConnection } from './modesl.js';
import { sendWholeRequests } from './whole-requests.js';

export interface EslConnectOptions {
  readonly host: string;
  readonly port: number;
  readonly password: string;
  readonly connectTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly subscription: EventSubscription;
}

export class EslTimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`FreeSWITCH did not answer "${what}" within ${ms} ms`);
    this.name = 'EslTimeoutError';
  }
}

export class EslClosedError extends Error {
  constructor(what: string) {
    super(`event socket closed before "${what}" was answered`);
    this.name = 'EslClosedError';
  }
}

interface Pending {
  readonly what: string;
  reject(error: Error): void;
}

type Events = { event: [FsEvent]; close: [] };

/**
 * One authenticated event-socket session with FreeSWITCH over modesl. Every request has a
 * timeout; when the socket closes, every request still waiting fails at once and `close` fires.
 * modesl answers replies in FIFO order, so a reply arriving after its timeout is consumed by the
 * callback that gave up on it and never reaches a later request.
 */
export class EslConnection extends EventEmitter<Events> {
  private readonly pending = new Set<Pending>();
  private closed = false;
  /** Epoch ms of the last byte received: the client probes an idle socket. */
  lastActivity = Date.now();

  private constructor(
    private readonly conn: ModeslConnection,
    private readonly requestTimeoutMs: number,
    private readonly log: Logger,
  ) {
    super();
    takeJsonEvents(conn, (event) => {
      if (!this.closed) this.emit('event', event);
    });
    conn.on('esl::event::disconnect::notice', this.onDisconnectNotice);
    // A socket error is followed by its close, which is what we act on.
    conn.on('error', (err: Error) => log.warn({ err }, 'event socket error'));
    conn.socket?.on('data', this.onData);
    conn.socket?.on('close', this.onClose);
  }

  static async connect(options: EslConnectOptions, log: Logger): Promise<EslConnection> {
    const conn = await open(options);
    const connection = new EslConnection(conn, options.requestTimeoutMs, log);
    try {
      await connection.subscribe(options.subscription);
    } catch (error) {
      connection.close();
      throw error;
    }
    return connection;
  }

  /** `event json ...`, then every filter at once (FreeSWITCH answers them in order). */
  private async subscribe({ events, filters }: EventSubscription): Promise<void> {
    const replies = await Promise.all([
      this.command(`event json ${events.join(' ')}`),
      ...filters.map(([header, value]) => this.command(`filter ${header} ${value}`)),
    ]);
    const refused = replies.find((reply) => !reply.startsWith('+OK'));
    if (refused !== undefined) throw new Error(`event subscription refused: ${refused}`);
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** `api <command>`: the response body (FreeSWITCH's own `+OK`/`-ERR` text included). */
  api(command: string, timeoutMs = this.requestTimeoutMs): Promise<string> {
    return this.request(`api ${command}`, timeoutMs, (done) =>
      this.conn.api(command, (event) => done(event.getBody() ?? '')),
    );
  }

  /** `bgapi <command>` with our own Job-UUID; the result comes later as BACKGROUND_JOB. */
  bgapi(command: string, jobUuid: string, timeoutMs = this.requestTimeoutMs): Promise<string> {
    return this.command(`bgapi ${command}`, { 'Job-UUID': jobUuid }, timeoutMs);
  }

  /** `sendmsg <uuid>` with the given headers; the reply text (`+OK` or `-ERR ...`). */
  sendmsg(
    uuid: string,
    headers: Record<string, string>,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<string> {
    return this.command(`sendmsg ${uuid}`, headers, timeoutMs);
  }

  /** Any socket command answered by `command/reply`; resolves with its Reply-Text. */
  command(
    line: string,
    headers: Record<string, string> | null = null,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<string> {
    return this.request(line, timeoutMs, (done) =>
      this.conn.sendRecv(line, headers, (event) => done(event.getHeader('Reply-Text') ?? '')),
    );
  }

  close(): void {
    this.conn.socket?.destroy();
    this.onClose();
  }

  private request(
    what: string,
    timeoutMs: number,
    send: (done: (value: string) => void) => void,
  ): Promise<string> {
    if (this.closed) return Promise.reject(new EslClosedError(what));
    // A line break would end the command early and smuggle in another one.
    if (/[\r\n]/.test(what)) return Promise.reject(new Error('line break in an ESL command'));
    return new Promise<string>((resolve, reject) => {
      let settled = false;
      const entry: Pending = {
        what,
        reject: (error) => finish(() => reject(error)),
      };
      const timer = setTimeout(() => entry.reject(new EslTimeoutError(what, timeoutMs)), timeoutMs);
      const finish = (settle: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.pending.delete(entry);
        settle();
      };
      this.pending.add(entry);
      send((value) => finish(() => resolve(value)));
    });
  }

  private readonly onDisconnectNotice = (): void => {
    this.log.warn('FreeSWITCH sent a disconnect notice');
    this.close();
  };

  private readonly onData = (): void => {
    this.lastActivity = Date.now();
  };

  private readonly onClose = (): void => {
    if (this.closed) return;
    this.closed = true;
    this.conn.socket?.off('data', this.onData);
    this.conn.socket?.off('close', this.onClose);
    this.conn.off('esl::event::disconnect::notice', this.onDisconnectNotice);
    for (const entry of [...this.pending]) entry.reject(new EslClosedError(entry.what));
    this.emit('close');
  };
}

/** TCP connect and `auth`, within the connect timeout. */
function open(options: EslConnectOptions): Promise<ModeslConnection> {
  return new Promise<ModeslConnection>((resolve, reject) => {
    const fail = (error: Error): void => {
      clearTimeout(timer);
      conn.socket?.destroy();
      conn.removeAllListeners();
      // modesl may still emit socket errors after we gave up; they must not crash the process.
      conn.on('error', () => undefined);
      reject(error);
    };
    const onError = (error: Error): void => fail(error);
    const conn = new modesl.Connection(options.host, options.port, options.password, () => {
      clearTimeout(timer);
      conn.off('error', onError);
      // Until EslConnection takes over with its own listener, an error must not throw.
      conn.on('error', () => undefined);
      resolve(conn);
    });
    // Before the auth request arrives: `auth` is a request too.
    sendWholeRequests(conn);
    const timer = setTimeout(() => {
      const where = `connect ${options.host}:${options.port}`;
      fail(new EslTimeoutError(where, options.connectTimeoutMs));
    }, options.connectTimeoutMs);
    conn.on('error', onError);
    conn.on('esl::event::auth::fail', () => fail(new Error('event socket authentication failed')));
  });
}
