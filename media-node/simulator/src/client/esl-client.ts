import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { encodeBytes } from '../esl/raw-text.js';
import { eventOf, FrameReader, type Ev, type Frame } from './frames.js';
import { KeyedMailbox } from './mailbox.js';

/** How long a reply, a `once`, a `waitFor` or a bgapi job may take unless told otherwise. */
const TIMEOUT_MS = 10_000;

/** The frames that answer a request, in request order; the greeting answers the connection. */
const REPLIES = new Set(['auth/request', 'command/reply', 'api/response']);

export interface EslClientOptions {
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default ClueCon, FreeSWITCH's and the simulator's. */
  readonly password?: string;
  /** Default json. */
  readonly format?: 'json' | 'plain';
  /** What to subscribe to, default everything (ALL). */
  readonly events?: readonly string[];
  /**
   * Keep every event in `events` (the default), for `sequence`, `trail` and a `waitFor` that
   * finds what came before it. Off, memory stays flat however long the client runs: only `once`
   * (events kept 30 s) and waiters already waiting see events.
   */
  readonly record?: boolean;
}

interface PendingReply {
  settle(frame: Frame): void;
  fail(err: Error): void;
  /** Set once it has timed out: its late reply is still its own, not the next request's. */
  done: boolean;
}

/**
 * An event-socket client over a bare socket: each request written whole, replies matched in
 * request order, each event parsed once into a plain object. The tests drive the simulator with
 * it, and the benchmark's baselines measure what a program with no gateway in between gets out
 * of it (or of FreeSWITCH).
 *
 * Events are awaited by predicate (`waitFor`, over what was recorded and what comes) or by key
 * (`once`, a map lookup that stays cheap with thousands of channels live):
 * `<Event-Name>:<Unique-ID>`, `<Event-Name>:app:<Application-UUID>`, `<Event-Name>:job:<Job-UUID>`,
 * and for a CUSTOM event `<Event-Subclass>:<Action>:<Unique-ID>` and
 * `<Event-Subclass>:<Action>:room:<Conference-Name>` (`conference::maintenance:add-member:<uuid>`).
 * An event that arrives before anyone waits for its key is kept for a while, as a channel's first
 * event may beat the answer that tells its uuid.
 */
export class EslClient {
  /** Every event received, in order, if recording (see EslClientOptions.record). */
  readonly events: Ev[] = [];
  private readonly replies: PendingReply[] = [];
  private readonly mailbox = new KeyedMailbox<Ev>();
  private waiters: Array<{ pred: (e: Ev) => boolean; resolve: (e: Ev) => void }> = [];
  private readonly reader = new FrameReader((frame) => this.onFrame(frame));

  private constructor(
    private readonly socket: Socket,
    private readonly record: boolean,
  ) {
    socket.on('data', (chunk: Buffer) => this.reader.push(chunk));
    socket.on('close', () => {
      const closed = new Error('event socket closed');
      for (const p of this.replies.splice(0)) if (!p.done) p.fail(closed);
    });
    // A failed connect or a reset ends in 'close'; a simulator closing at a test's end is fine.
    socket.on('error', () => undefined);
  }

  /** Connects, authenticates and subscribes. */
  static async connect(port: number, options: EslClientOptions = {}): Promise<EslClient> {
    const socket = connect(port, options.host ?? '127.0.0.1');
    socket.setNoDelay(true);
    const client = new EslClient(socket, options.record ?? true);
    try {
      await client.request(); // the greeting, auth/request
      const auth = await client.command(`auth ${options.password ?? 'ClueCon'}`);
      if (!auth.startsWith('+OK')) throw new Error(`event socket auth: ${auth}`);
      const events = (options.events ?? ['ALL']).join(' ');
      await client.command(`event ${options.format ?? 'json'} ${events}`);
      return client;
    } catch (err) {
      socket.destroy();
      throw err;
    }
  }

  /** A command line, with header lines after it; its reply's Reply-Text. */
  async command(line: string, headers: Readonly<Record<string, string>> = {}): Promise<string> {
    let text = line;
    for (const [name, value] of Object.entries(headers)) text += `\n${name}: ${value}`;
    return (await this.request(text)).headers['Reply-Text'] ?? '';
  }

  /** `api <cmd>`: the response's body. */
  async api(cmd: string): Promise<string> {
    return (await this.request(`api ${cmd}`)).body;
  }

  /** `bgapi <cmd>`: the body of its BACKGROUND_JOB (which the subscription must hold: ALL does). */
  async bgapi(cmd: string, timeoutMs = TIMEOUT_MS): Promise<string> {
    const job = randomUUID();
    const reply = await this.command(`bgapi ${cmd}`, { 'Job-UUID': job });
    if (!reply.startsWith('+OK')) throw new Error(`bgapi ${cmd}: ${reply}`);
    // The job may finish before the reply's promise resumes this: the mailbox keeps it.
    return (await this.once(`BACKGROUND_JOB:job:${job}`, timeoutMs))._body ?? '';
  }

  /**
   * `sendmsg <uuid>` with `call-command: execute`, headers as the media node sends them; the
   * reply's Reply-Text. `eventUuid` comes back as the execution's Application-UUID.
   */
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
      'Event-UUID': eventUuid,
    };
    if (lock) headers['event-lock'] = 'true';
    return this.command(`sendmsg ${uuid}`, headers);
  }

  /** The event with this key (see the class comment), arrived lately or within `timeoutMs`. */
  once(key: string, timeoutMs = TIMEOUT_MS): Promise<Ev> {
    return this.mailbox.once(key, timeoutMs);
  }

  /** The first recorded or future event matching `pred`. */
  waitFor(pred: (e: Ev) => boolean, timeoutMs = TIMEOUT_MS): Promise<Ev> {
    const seen = this.events.find(pred);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const waiter = {
        pred,
        resolve: (e: Ev) => {
          clearTimeout(timer);
          resolve(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching event within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  waitEvent(name: string, uuid?: string, extra: (e: Ev) => boolean = () => true): Promise<Ev> {
    return this.waitFor(
      (e) => e['Event-Name'] === name && (!uuid || e['Unique-ID'] === uuid) && extra(e),
    );
  }

  /** Recorded events of one channel since index `from`, as names (CUSTOM as CUSTOM(subclass)). */
  sequence(uuid: string, from = 0, skip: string[] = ['CHANNEL_STATE', 'API']): string[] {
    return this.channelEvents(uuid, from, skip).map((e) => name(e));
  }

  /** A channel's events as `sequence` names them, with their application: CHANNEL_EXECUTE(park). */
  trail(uuid: string): string[] {
    return this.channelEvents(uuid).map((e) =>
      e.Application ? `${name(e)}(${e.Application})` : name(e),
    );
  }

  /** Closes the socket now; the `exit` before it is a courtesy. */
  close(): void {
    this.socket.end('exit\n\n');
    this.socket.destroy();
  }

  private channelEvents(uuid: string, from = 0, skip = ['CHANNEL_STATE', 'API']): Ev[] {
    return this.events
      .slice(from)
      .filter((e) => e['Unique-ID'] === uuid && !skip.includes(e['Event-Name'] ?? ''));
  }

  /** Writes `text` as one request (none: awaits the greeting); its reply. */
  private request(text?: string): Promise<Frame> {
    return new Promise((resolve, reject) => {
      const pending: PendingReply = {
        done: false,
        settle: (frame) => {
          clearTimeout(timer);
          resolve(frame);
        },
        fail: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      const what = text === undefined ? 'greeting' : `reply to ${text.split('\n')[0]}`;
      const timer = setTimeout(() => {
        pending.done = true;
        reject(new Error(`event socket: no ${what} within ${TIMEOUT_MS} ms`));
      }, TIMEOUT_MS);
      this.replies.push(pending);
      // Bytes that are not UTF-8 travel in `text` as U+DC80–U+DCFF (raw-text.ts).
      if (text !== undefined) this.socket.write(encodeBytes(`${text}\n\n`));
    });
  }

  private onFrame(frame: Frame): void {
    if (REPLIES.has(frame.headers['Content-Type'] ?? '')) {
      const pending = this.replies.shift();
      if (pending && !pending.done) pending.settle(frame);
      return;
    }
    const event = eventOf(frame); // undefined for the disconnect notice
    if (event) this.onEvent(event);
  }

  private onEvent(event: Ev): void {
    if (this.record) this.events.push(event);
    if (this.waiters.length > 0) {
      this.waiters = this.waiters.filter((w) => {
        if (!w.pred(event)) return true;
        w.resolve(event);
        return false;
      });
    }
    this.mailbox.deliver(keysOf(event), event);
  }
}

/** The keys `once` finds an event by (see EslClient). */
function keysOf(event: Ev): string[] {
  const name = event['Event-Name'] ?? '';
  const uuid = event['Unique-ID'];
  const keys = [`${name}:${uuid ?? ''}`];
  if (event['Application-UUID']) keys.push(`${name}:app:${event['Application-UUID']}`);
  if (event['Job-UUID']) keys.push(`${name}:job:${event['Job-UUID']}`);
  const subclass = event['Event-Subclass'];
  if (subclass) {
    const action = `${subclass}:${event.Action ?? ''}`;
    if (uuid) keys.push(`${action}:${uuid}`);
    if (event['Conference-Name']) keys.push(`${action}:room:${event['Conference-Name']}`);
  }
  return keys;
}

/** An event's name as `sequence` gives it: CUSTOM as CUSTOM(subclass). */
export function name(e: Ev): string {
  const n = e['Event-Name'] ?? '';
  return n === 'CUSTOM' ? `CUSTOM(${e['Event-Subclass']})` : n;
}
