// A channel's application thread. Applications run one on top of another like FreeSWITCH's
// nested message parsing: while `park` or a media application runs, a queued sendmsg executes
// nested on top of it (the one below freezes) unless an `event-lock` holds the queue; the
// channel hangs up when its dialplan/originate applications run out.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@voicegw/shared';
import type { Header } from '../esl/event.js';
import type { Player } from '../media/player.js';
import { MESSAGE_LATENCY_MS, sleep } from './timing.js';

/** A running application on a channel: how the channel controls it while it runs. */
export interface AppHandle {
  /** Resolves with the Application-Response when the application ends. */
  readonly done: Promise<string>;
  /** The channel hung up: end now, firing the application's own closing events. */
  hangup(): void;
  /** uuid_break: stop the media now; `true` if there was media to stop. */
  breakMedia?(): boolean;
  /** A DTMF digit reached the channel while this application was on top. */
  dtmf?(digit: string, samples: number): void;
  /** What `show channels` lists as the application, when it is not the one started. */
  label?(): string;
  /** Another application started on top of this one (no event-lock): freeze media. */
  suspend?(): void;
  resume?(): void;
  /** Whether queued messages may run nested now (media apps: only while their file plays). */
  acceptsMessages?(): boolean;
  /** The file handle uuid_fileman acts on, when a file is playing. */
  fileHandle?(): Player | undefined;
}

/** What the executor uses of its channel (a Channel is one). */
export interface ExecutedChannel {
  readonly uuid: string;
  readonly alive: boolean;
  readonly mediaReady: boolean;
  readonly vars: Map<string, string>;
  fire(name: string, opts?: { readonly vars?: boolean; readonly tail?: Header[] }): void;
  hangup(cause?: string): void;
}

/** Starts application `app` on the executor's channel; undefined: no such application. */
export type LaunchApp = (app: string, arg: string) => AppHandle | undefined;

export interface ExecRequest {
  readonly app: string;
  readonly arg: string;
  /** Event-UUID of the sendmsg, echoed as Application-UUID. */
  readonly appUuid: string;
  readonly eventLock: boolean;
  /** Came from sendmsg rather than from a dialplan (see `announcesMessages`). */
  readonly fromMessage: boolean;
  /**
   * Not an application but a state of the channel (a bridge, a park after a bridge): no
   * CHANNEL_EXECUTE / EXECUTE_COMPLETE, as FreeSWITCH's state handlers fire none.
   */
  readonly silent?: boolean;
}

interface Frame {
  readonly req: ExecRequest;
  /** A message whose completion fires PRIVATE_COMMAND. */
  readonly announced: boolean;
  handle: AppHandle | undefined;
  readonly finished: Promise<void>;
  resolveFinished(): void;
}

/** Applications that read media and so process queued messages while they run. */
const NESTABLE = new Set([
  'park',
  'playback',
  'play_and_get_digits',
  'conference',
  'sleep',
  'uuid_bridge',
]);

export class Executor {
  private readonly stack: Frame[] = [];
  private readonly queue: ExecRequest[] = [];
  private lastResponse = '_none_';
  /** Bumped when a transfer or bridge takes the channel away from its dialplan. */
  private generation = 0;

  constructor(
    private readonly channel: ExecutedChannel,
    private readonly launch: LaunchApp,
    private readonly log: Logger,
  ) {}

  get lastAppResponse(): string {
    return this.lastResponse;
  }

  /** The applications currently running, bottom first. */
  running(): readonly string[] {
    return this.stack.map((f) => f.handle?.label?.() ?? f.req.app);
  }

  /** sendmsg execute: reaches the channel on its next frame. */
  enqueue(req: ExecRequest): void {
    this.queue.push(req);
    setTimeout(() => this.pump(), MESSAGE_LATENCY_MS);
  }

  /** Dialplan or originate applications: run in order; the channel hangs up after the last. */
  async runSequence(apps: ReadonlyArray<{ app: string; arg: string }>): Promise<void> {
    const generation = this.generation;
    const current = () => this.channel.alive && generation === this.generation;
    for (const { app, arg } of apps) {
      if (!current()) return;
      const frame = this.start({
        app,
        arg,
        appUuid: randomUUID(),
        eventLock: false,
        fromMessage: false,
      });
      await frame.finished;
    }
    // Messages still queued run before the channel gives up, as the session thread would.
    while (current() && (this.queue.length > 0 || this.stack.length > 0)) {
      await sleep(MESSAGE_LATENCY_MS);
    }
    if (current()) this.channel.hangup('NORMAL_CLEARING');
  }

  /**
   * uuid_transfer, uuid_bridge: the channel leaves what it was running (each application ends
   * with its closing events) and its old dialplan no longer decides when it hangs up.
   */
  async takeOver(): Promise<void> {
    this.generation++;
    await this.unwind();
  }

  /** Puts a channel state (a bridge) on the stack: `run` runs it, with no execute events. */
  hold(app: string, arg: string, run: () => AppHandle): Promise<void> {
    const req = { app, arg, appUuid: randomUUID(), eventLock: false, fromMessage: false };
    return this.start({ ...req, silent: true }, run).finished;
  }

  /** uuid_break: stop the media on top; `all` also flushes queued messages and every level. */
  breakMedia(all: boolean): void {
    if (all) this.queue.length = 0;
    const frames = all ? [...this.stack].reverse() : this.stack.slice(-1);
    for (const f of frames) f.handle?.breakMedia?.();
  }

  dtmf(digit: string, samples: number): void {
    this.stack.at(-1)?.handle?.dtmf?.(digit, samples);
  }

  fileHandle() {
    for (let i = this.stack.length - 1; i >= 0; i--) {
      const player = this.stack[i]?.handle?.fileHandle?.();
      if (player && !player.isEnded) return player;
    }
    return undefined;
  }

  /** Hangup: end every running application, top first, each firing its closing events. */
  async unwind(): Promise<void> {
    this.queue.length = 0;
    while (this.stack.length > 0) {
      const top = this.stack[this.stack.length - 1]!;
      top.handle?.hangup();
      await top.finished;
    }
  }

  private pump(): void {
    while (this.channel.alive && this.queue.length > 0 && this.accepting()) {
      this.start(this.queue.shift()!);
    }
  }

  private accepting(): boolean {
    if (this.stack.some((f) => f.req.eventLock)) return false;
    const top = this.stack.at(-1);
    if (!top) return true;
    if (!NESTABLE.has(top.req.app)) return false;
    return top.handle?.acceptsMessages?.() ?? true;
  }

  /**
   * Whether a message taken now is followed by PRIVATE_COMMAND once it has run. FreeSWITCH's
   * park loop takes a message itself, without one, while the channel has no media (its `rate`
   * is still 0 in switch_ivr_park); every other reader, park with media included, goes through
   * switch_ivr_parse_next_event, which fires it. Seen on FreeSWITCH 1.10.12: an answer sent to a
   * parked, unanswered inbound call brings none; the messages after it do.
   */
  announcesMessages(): boolean {
    return this.stack.at(-1)?.req.app !== 'park' || this.channel.mediaReady;
  }

  /** A media application reached its play loop: queued messages may run now. */
  poke(): void {
    this.pump();
  }

  private start(req: ExecRequest, override?: () => AppHandle): Frame {
    let resolveFinished!: () => void;
    const finished = new Promise<void>((r) => (resolveFinished = r));
    const announced = req.fromMessage && this.announcesMessages();
    const frame: Frame = { req, announced, handle: undefined, finished, resolveFinished };
    this.stack.at(-1)?.handle?.suspend?.();
    this.stack.push(frame);
    const ch = this.channel;
    if (!req.silent) {
      ch.vars.set('current_application', req.app);
      if (req.arg) ch.vars.set('current_application_data', req.arg);
      ch.fire('CHANNEL_EXECUTE', { tail: appHeaders(req) });
    }
    const handle = override ? override() : this.launch(req.app, req.arg);
    if (!handle) {
      this.log.warn({ uuid: ch.uuid, app: req.app }, 'unknown application');
      frame.handle = { done: Promise.resolve('_none_'), hangup: () => undefined };
    } else {
      frame.handle = handle;
    }
    frame.handle.done.then(
      (response) => this.finish(frame, response),
      (err: unknown) => {
        this.log.error({ err, app: req.app }, 'application failed');
        this.finish(frame, '_none_');
      },
    );
    return frame;
  }

  private finish(frame: Frame, response: string): void {
    const ch = this.channel;
    if (!frame.req.silent) {
      this.lastResponse = response;
      ch.vars.set('last_app', frame.req.app);
      if (frame.req.arg) ch.vars.set('last_arg', frame.req.arg);
      ch.fire('CHANNEL_EXECUTE_COMPLETE', {
        tail: [...appHeaders(frame.req, response)],
      });
    }
    if (frame.announced) ch.fire('PRIVATE_COMMAND', { vars: false });
    const idx = this.stack.indexOf(frame);
    if (idx !== -1) this.stack.splice(idx, 1);
    frame.resolveFinished();
    if (!ch.alive) return;
    if (idx === this.stack.length) this.stack.at(-1)?.handle?.resume?.();
    this.pump();
  }
}

function appHeaders(req: ExecRequest, response?: string): Array<[string, string]> {
  const h: Array<[string, string]> = [['Application', req.app]];
  if (req.arg) h.push(['Application-Data', req.arg]);
  if (response !== undefined) h.push(['Application-Response', response]);
  h.push(['Application-UUID', req.appUuid]);
  return h;
}
