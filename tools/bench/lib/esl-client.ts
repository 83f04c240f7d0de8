import { connect, type Socket } from 'node:net';
import { KeyedMailbox } from './keyed-mailbox.js';

/** An event as `event json` delivers it: every value a string. */
export type EslEvent = Readonly<Record<string, string | undefined>>;

const REQUEST_TIMEOUT_MS = 5000;

interface Pending {
  resolve(frame: Frame): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

interface Frame {
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * A bare event-socket client for the baselines: what a program with no gateway in between can
 * get out of FreeSWITCH (here the simulator). Replies come back in request order; events are
 * matched by key (`CHANNEL_PARK:<uuid>`, `CHANNEL_EXECUTE_COMPLETE:app:<Application-UUID>`,
 * `conference::maintenance:add-member:<uuid>`, `…:conference-destroy:room:<name>`), and
 * an event that arrives before anyone waits for it is kept for a while, as a channel's first
 * event may beat the HTTP answer that tells its uuid.
 */
export class RawEsl {
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Pending[] = [];
  private readonly mailbox = new KeyedMailbox<EslEvent>();

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => {
      for (const p of this.pending.splice(0)) p.reject(new Error('event socket closed'));
    });
    socket.on('error', () => undefined);
  }

  static async connect(port: number, password: string, events: string[]): Promise<RawEsl> {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const esl = new RawEsl(socket);
    await esl.next(); // auth/request
    await esl.command(`auth ${password}`);
    await esl.command(`event json ${events.join(' ')}`);
    return esl;
  }

  /** `api <cmd>`: the response body. */
  async api(cmd: string): Promise<string> {
    return (await this.command(`api ${cmd}`)).body;
  }

  /** `sendmsg <uuid>` with `call-command: execute`; resolves on the command/reply. */
  async execute(uuid: string, app: string, eventUuid: string, arg?: string): Promise<string> {
    const frame = await this.command(
      `sendmsg ${uuid}\ncall-command: execute\nexecute-app-name: ${app}\n` +
        (arg === undefined ? '' : `execute-app-arg: ${arg}\n`) +
        `event-lock: true\nEvent-UUID: ${eventUuid}`,
    );
    return frame.headers['Reply-Text'] ?? '';
  }

  /** The event with this key (see the class comment), now or within `timeoutMs`. */
  once(key: string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<EslEvent> {
    return this.mailbox.once(key, timeoutMs);
  }

  close(): void {
    this.socket.end('exit\n\n');
    this.socket.destroy();
  }

  private command(text: string): Promise<Frame> {
    this.socket.write(`${text}\n\n`);
    return this.next();
  }

  private next(): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const i = this.pending.findIndex((p) => p.timer === timer);
        if (i >= 0) this.pending.splice(i, 1);
        reject(new Error(`event socket: no reply within ${REQUEST_TIMEOUT_MS} ms`));
      }, REQUEST_TIMEOUT_MS);
      this.pending.push({ resolve, reject, timer });
    });
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) return;
      const headers: Record<string, string> = {};
      for (const line of this.buffer.subarray(0, end).toString('utf8').split('\n')) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon)] = line.slice(colon + 1).trim();
      }
      const length = Number(headers['Content-Length'] ?? 0);
      if (this.buffer.length < end + 2 + length) return;
      const body = this.buffer.subarray(end + 2, end + 2 + length).toString('utf8');
      this.buffer = this.buffer.subarray(end + 2 + length);
      this.dispatch({ headers, body });
    }
  }

  private dispatch(frame: Frame): void {
    const type = frame.headers['Content-Type'];
    if (type === 'text/event-json') return this.onEvent(JSON.parse(frame.body) as EslEvent);
    if (type === 'text/disconnect-notice') return;
    const pending = this.pending.shift();
    if (!pending) return;
    clearTimeout(pending.timer);
    pending.resolve(frame);
  }

  private onEvent(event: EslEvent): void {
    const name = event['Event-Name'] ?? '';
    const keys = [`${name}:${event['Unique-ID'] ?? ''}`];
    if (event['Application-UUID']) keys.push(`${name}:app:${event['Application-UUID']}`);
    const subclass = event['Event-Subclass'];
    if (subclass) {
      // `conference::maintenance:add-member:<uuid>`, `…:conference-destroy:room:<name>`
      const action = `${subclass}:${event.Action ?? ''}`;
      if (event['Unique-ID']) keys.push(`${action}:${event['Unique-ID']}`);
      if (event['Conference-Name']) keys.push(`${action}:room:${event['Conference-Name']}`);
    }
    this.mailbox.deliver(keys, event);
  }
}
