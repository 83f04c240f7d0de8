import { EventEmitter } from 'node:events';
import type { Logger } from '@voicegw/shared';
import { EslConnection, type EslConnectOptions } from './connection.js';
import type { FsEvent } from './event.js';

export interface EslClientOptions extends EslConnectOptions {
  readonly reconnectMinMs: number;
  readonly reconnectMaxMs: number;
  /** Probe the socket with `api status` after this long without traffic. */
  readonly idlePingMs: number;
}

export class EslNotConnectedError extends Error {
  constructor() {
    super('not connected to FreeSWITCH');
    this.name = 'EslNotConnectedError';
  }
}

type Events = { event: [FsEvent]; connected: []; disconnected: [] };

/**
 * The media node's link to its FreeSWITCH: connects, reconnects with capped exponential back-off
 * (with jitter) whenever the socket drops or stops answering, and forwards every event. Requests
 * made while disconnected fail at once with EslNotConnectedError rather than queue.
 */
export class EslClient extends EventEmitter<Events> {
  private connection: EslConnection | undefined;
  private stopped = false;
  private failures = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly idleTimer: NodeJS.Timeout;
  private probing = false;

  constructor(
    private readonly options: EslClientOptions,
    private readonly log: Logger,
  ) {
    super();
    this.idleTimer = setInterval(
      () => void this.probeIfIdle(),
      Math.max(500, options.idlePingMs / 2),
    );
    this.idleTimer.unref();
  }

  get connected(): boolean {
    return this.connection?.isOpen ?? false;
  }

  start(): void {
    void this.connect();
  }

  /** Resolves once connected (at once if already), or rejects after `timeoutMs`. */
  waitConnected(timeoutMs: number): Promise<void> {
    if (this.connected) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onConnected = (): void => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off('connected', onConnected);
        reject(new Error(`FreeSWITCH not reachable within ${timeoutMs} ms`));
      }, timeoutMs);
      this.once('connected', onConnected);
    });
  }

  api(command: string, timeoutMs?: number): Promise<string> {
    return this.current().api(command, timeoutMs);
  }

  bgapi(command: string, jobUuid: string): Promise<string> {
    return this.current().bgapi(command, jobUuid);
  }

  /**
   * Runs a dialplan application on a channel (`sendmsg` execute). `Event-UUID` comes back as
   * Application-UUID on CHANNEL_EXECUTE/EXECUTE_COMPLETE; `event-lock` (the default) keeps a
   * later execute from running nested inside this one. Without it, an application that parses
   * messages while it runs (a conference) lets later ones run on top of it.
   */
  execute(
    uuid: string,
    app: string,
    arg: string,
    eventUuid: string,
    options: { readonly eventLock?: boolean } = {},
  ): Promise<string> {
    if (/[\r\n]/.test(app + arg)) return Promise.reject(new Error('newline in application data'));
    return this.current().sendmsg(uuid, {
      'call-command': 'execute',
      'execute-app-name': app,
      'execute-app-arg': arg,
      'Event-UUID': eventUuid,
      ...(options.eventLock === false ? {} : { 'event-lock': 'true' }),
    });
  }

  /** Drops the current socket (as a network failure would); the client reconnects. */
  dropConnection(): void {
    this.connection?.close();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.idleTimer);
    clearTimeout(this.retryTimer);
    this.connection?.close();
    this.connection = undefined;
  }

  private current(): EslConnection {
    const connection = this.connection;
    if (!connection?.isOpen) throw new EslNotConnectedError();
    return connection;
  }

  private async connect(): Promise<void> {
    if (this.stopped) return;
    try {
      const connection = await EslConnection.connect(this.options, this.log);
      if (this.stopped) {
        connection.close();
        return;
      }
      this.failures = 0;
      this.connection = connection;
      connection.on('event', (event) => this.emit('event', event));
      connection.once('close', () => this.onClose(connection));
      this.log.info(
        { host: this.options.host, port: this.options.port },
        'connected to FreeSWITCH',
      );
      this.emit('connected');
    } catch (err) {
      this.failures++;
      this.log.warn({ err, attempt: this.failures }, 'FreeSWITCH connection failed');
      this.scheduleReconnect();
    }
  }

  private onClose(connection: EslConnection): void {
    connection.removeAllListeners('event');
    if (this.connection !== connection) return;
    this.connection = undefined;
    if (this.stopped) return;
    this.log.warn('FreeSWITCH connection lost; reconnecting');
    this.emit('disconnected');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    const { reconnectMinMs: min, reconnectMaxMs: max } = this.options;
    const base = Math.min(max, min * 2 ** Math.max(0, this.failures - 1));
    const delay = Math.round(base * (0.8 + Math.random() * 0.4));
    this.retryTimer = setTimeout(() => void this.connect(), delay);
  }

  /** A socket that went quiet may be half-open: ask FreeSWITCH something, drop it if mute. */
  private async probeIfIdle(): Promise<void> {
    const connection = this.connection;
    if (!connection?.isOpen || this.probing) return;
    if (Date.now() - connection.lastActivity < this.options.idlePingMs) return;
    this.probing = true;
    try {
      await connection.api('status');
    } catch (err) {
      this.log.warn({ err }, 'FreeSWITCH did not answer the idle probe; reconnecting');
      connection.close();
    } finally {
      this.probing = false;
    }
  }
}
