import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { EslClient } from '../esl/client.js';
import type { FsEvent } from '../esl/event.js';
import type { ChannelEventSink, EventRouter } from '../esl/router.js';

/** Where a FreeSWITCH channel is in its life, as its events tell. */
export enum ChannelState {
  New = 'new',
  Ringing = 'ringing',
  Early = 'early',
  Answered = 'answered',
  HungUp = 'hung_up',
  /** CHANNEL_HANGUP_COMPLETE seen: nothing more will happen on it. */
  Gone = 'gone',
}

type Events = { event: [FsEvent]; gone: [] };

/**
 * One FreeSWITCH channel (one UUID), drachtio-fsmrf style: receives the channel's events from
 * the router, tracks its state and runs applications on it. While `held`, events are kept in
 * order and replayed on release, so a session still being set up (Redis round trips) misses
 * nothing, not even a hangup.
 */
export class Channel extends EventEmitter<Events> implements ChannelEventSink {
  state = ChannelState.New;
  /** Epoch ms of CHANNEL_ANSWER. */
  answeredAt: number | undefined;
  private held: FsEvent[] | undefined;

  constructor(
    readonly uuid: string,
    private readonly esl: EslClient,
    private readonly router: EventRouter,
    options: { readonly hold?: boolean; readonly state?: ChannelState } = {},
  ) {
    super();
    this.setMaxListeners(50);
    if (options.hold) this.held = [];
    if (options.state) this.state = options.state;
    if (options.state === ChannelState.Answered) this.answeredAt = Date.now();
  }

  get answered(): boolean {
    return this.answeredAt !== undefined;
  }

  get alive(): boolean {
    return this.state !== ChannelState.HungUp && this.state !== ChannelState.Gone;
  }

  attach(): void {
    this.router.attach(this.uuid, this);
  }

  detach(): void {
    this.router.detach(this.uuid, this);
  }

  onEvent(event: FsEvent): void {
    this.track(event);
    if (this.held) this.held.push(event);
    else this.emit('event', event);
  }

  /** Replays the events held since creation, in order, then delivers live. */
  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const event of held) this.emit('event', event);
  }

  /** Ends the channel's life here (after teardown): waiters settle, listeners go. */
  finish(): void {
    this.state = ChannelState.Gone;
    this.detach();
    this.emit('gone');
    this.removeAllListeners();
  }

  /**
   * Runs a dialplan application (event-lock unless `eventLock: false`: after whatever runs
   * before it); resolves with its Application-UUID once FreeSWITCH accepted the sendmsg. The
   * application itself completes with CHANNEL_EXECUTE_COMPLETE later.
   */
  async execute(
    app: string,
    arg = '',
    applicationUuid: string = randomUUID(),
    options: { readonly eventLock?: boolean } = {},
  ): Promise<string> {
    const reply = await this.esl.execute(this.uuid, app, arg, applicationUuid, options);
    if (!reply.startsWith('+OK')) throw new Error(`${app} refused: ${reply}`);
    return applicationUuid;
  }

  /** An API command about this channel; the body, with FreeSWITCH's +OK/-ERR. */
  api(command: string): Promise<string> {
    return this.esl.api(command);
  }

  /**
   * Calls `settle` exactly once: synchronously with the first event that matches, or with
   * undefined after `timeoutMs` or when the channel is gone. Returns a cancel function. Both
   * listeners are removed by reference.
   */
  expect(
    match: (event: FsEvent) => boolean,
    timeoutMs: number,
    settle: (event: FsEvent | undefined) => void,
  ): () => void {
    let done = false;
    const finish = (event: FsEvent | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      this.off('event', onEvent);
      this.off('gone', onGone);
      settle(event);
    };
    const onEvent = (event: FsEvent): void => {
      if (match(event)) finish(event);
    };
    const onGone = (): void => finish(undefined);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    this.on('event', onEvent);
    this.on('gone', onGone);
    if (this.state === ChannelState.Gone) finish(undefined);
    return () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      this.off('event', onEvent);
      this.off('gone', onGone);
    };
  }

  private track(event: FsEvent): void {
    switch (event.name) {
      case 'CHANNEL_PROGRESS':
        if (this.state === ChannelState.New) this.state = ChannelState.Ringing;
        break;
      case 'CHANNEL_PROGRESS_MEDIA':
        if (this.state === ChannelState.New || this.state === ChannelState.Ringing)
          this.state = ChannelState.Early;
        break;
      case 'CHANNEL_ANSWER':
        if (this.alive) this.state = ChannelState.Answered;
        this.answeredAt ??= Date.now();
        break;
      case 'CHANNEL_HANGUP':
      case 'CHANNEL_HANGUP_COMPLETE':
        if (this.state !== ChannelState.Gone) this.state = ChannelState.HungUp;
        break;
    }
  }
}
