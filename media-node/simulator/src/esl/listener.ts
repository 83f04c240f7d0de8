// One inbound event-socket connection, as mod_event_socket's listener handles it: auth,
// event subscriptions and filters, api/bgapi, sendmsg, exit. Commands run one at a time (a
// blocking `api originate` holds the socket's commands, not its events).
import { randomUUID } from 'node:crypto';
import type { Socket } from 'node:net';
import { background, coalesceWrites, type Logger } from '@voicegw/shared';
import type { EventSink } from '../core/context.js';
import type { SimSwitch } from '../core/switch.js';
import { normalizeCause } from '../core/causes.js';
import { MESSAGE_LATENCY_MS } from '../core/timing.js';
import { frameEvent, type EventFormat, type FsEvent } from './event.js';
import {
  AUTH_REQUEST,
  CommandParser,
  apiResponse,
  commandReply,
  disconnectNotice,
  type ClientCommand,
} from './frames.js';
import { EventSubscription } from './subscription.js';

export class Listener implements EventSink {
  private readonly parser = new CommandParser();
  private readonly subs = new EventSubscription();
  private authed = false;
  private format: EventFormat = 'plain';
  private chain: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(
    private readonly socket: Socket,
    private readonly sw: SimSwitch,
    private readonly password: string,
    private readonly log: Logger,
  ) {
    socket.setNoDelay(true);
    // The events and replies of one turn leave in one write: the bytes are FreeSWITCH's, the
    // simulator's CPU per event is not, and it shares the machine with what is measured.
    coalesceWrites(socket, 'turn');
    socket.on('data', (chunk: Buffer) => {
      for (const cmd of this.parser.push(chunk)) {
        this.chain = this.chain
          .then(() => this.handle(cmd))
          .catch((err: unknown) => {
            this.log.error({ err }, 'esl command failed');
          });
      }
    });
    socket.on('close', () => this.dispose());
    socket.on('error', () => this.dispose());
    sw.sinks.add(this);
    this.write(AUTH_REQUEST);
  }

  close(): void {
    this.dispose();
    this.socket.destroy();
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    this.sw.sinks.delete(this);
  }

  private write(data: string): void {
    if (!this.closed && this.socket.writable) this.socket.write(data);
  }

  private reply(text: string, extra?: Record<string, string>): void {
    this.write(commandReply(text, extra));
  }

  hears(name: string): boolean {
    return this.authed && this.subs.hears(name);
  }

  deliver(ev: FsEvent): void {
    if (this.authed && this.subs.wants(ev)) this.write(frameEvent(ev, this.format));
  }

  private async handle(cmd: ClientCommand): Promise<void> {
    const line = cmd.line;
    if (!line) return;
    const [verb = '', ...restParts] = line.split(' ');
    const rest = restParts.join(' ');
    const lower = verb.toLowerCase();
    if (lower === 'exit' || lower === '...') {
      this.reply('+OK bye');
      this.write(disconnectNotice());
      this.dispose();
      this.socket.end();
      return;
    }
    if (!this.authed) {
      if (lower !== 'auth') return this.reply('-ERR command not found');
      if (rest === this.password) {
        this.authed = true;
        return this.reply('+OK accepted');
      }
      this.reply('-ERR invalid');
      this.dispose();
      this.socket.end();
      return;
    }
    switch (lower) {
      case 'event':
        return this.event(restParts);
      case 'nixevent':
        return this.reply(
          this.subs.remove(restParts) ? '+OK events nixed' : '-ERR no keywords supplied',
        );
      case 'noevents':
        return this.reply(
          this.subs.clear()
            ? '+OK no longer listening for events'
            : '-ERR not listening for events',
        );
      case 'filter':
        return this.reply(this.subs.filter(restParts));
      case 'api':
        return this.api(rest);
      case 'bgapi':
        return this.bgapi(rest, cmd.headers.get('job-uuid'));
      case 'sendmsg':
        return this.sendmsg(rest.trim(), cmd);
      case 'linger':
      case 'nolinger':
        // An inbound socket controls no session, so FreeSWITCH refuses both.
        return this.reply('-ERR not controlling a session');
      case 'log':
        return this.reply(`+OK log level ${restParts[0] ?? 'debug'} [7]`);
      case 'nolog':
        return this.reply('+OK no longer logging');
      default:
        return this.reply('-ERR command not found');
    }
  }

  private event(args: string[]): void {
    let names = args;
    const fmt = args[0]?.toLowerCase();
    if (fmt === 'plain' || fmt === 'json' || fmt === 'xml') {
      // XML is not simulated; such listeners get plain frames.
      this.format = fmt === 'json' ? 'json' : 'plain';
      names = args.slice(1);
    }
    if (!this.subs.add(names)) return this.reply('-ERR no keywords supplied');
    this.reply(`+OK event listener enabled ${fmt === 'xml' ? 'xml' : this.format}`);
  }

  private async api(rest: string): Promise<void> {
    const [cmd = '', ...argv] = rest.split(' ');
    const result = await this.sw.api(cmd, argv.join(' '));
    const body = typeof result === 'string' ? result : result.body;
    // mod_event_socket's api_exec: a command that wrote nothing answers "-ERR no reply".
    this.write(apiResponse(body || '-ERR no reply\n'));
    if (typeof result !== 'string') result.after?.();
  }

  private bgapi(rest: string, jobHeader: string | undefined): void {
    const jobUuid = jobHeader ?? randomUUID();
    const [cmd = '', ...argv] = rest.split(' ');
    const arg = argv.join(' ');
    this.reply(`+OK Job-UUID: ${jobUuid}`, { 'Job-UUID': jobUuid });
    background(
      this.sw.api(cmd, arg).then((result) => {
        const ev = this.sw.createEvent('BACKGROUND_JOB');
        ev.headers.push(['Job-UUID', jobUuid], ['Job-Command', cmd]);
        if (arg) ev.headers.push(['Job-Command-Arg', arg]);
        ev.body = typeof result === 'string' ? result : result.body;
        this.sw.fire(ev);
        if (typeof result !== 'string') result.after?.();
      }),
      this.log,
      `bgapi ${cmd}`,
    );
  }

  private sendmsg(uuid: string, cmd: ClientCommand): void {
    const h = cmd.headers;
    const ch = this.sw.channels.get(uuid || (h.get('session-id') ?? ''));
    if (!ch || !ch.alive) return this.reply(`-ERR invalid session id [${uuid}]`);
    const command = (h.get('call-command') ?? '').toLowerCase();
    if (command === 'execute') {
      const app = h.get('execute-app-name') ?? '';
      const arg = h.get('execute-app-arg') ?? cmd.body ?? '';
      ch.executor.enqueue({
        app,
        arg,
        appUuid: h.get('event-uuid') ?? randomUUID(),
        eventLock: (h.get('event-lock') ?? '').toLowerCase() === 'true',
        fromMessage: true,
      });
    } else if (command === 'hangup') {
      const cause = normalizeCause(h.get('hangup-cause'));
      setTimeout(() => {
        const announced = ch.executor.announcesMessages();
        if (ch.hangup(cause) && announced) ch.fire('PRIVATE_COMMAND', { vars: false });
      }, MESSAGE_LATENCY_MS);
    }
    this.reply('+OK');
  }
}
