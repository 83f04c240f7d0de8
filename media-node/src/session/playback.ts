import { randomUUID } from 'node:crypto';
import { background, type EventName, type EventPayload, type Logger } from '@voicegw/shared';
import type { FsEvent } from '../esl/event.js';
import type { Channel } from './channel.js';

/** What a playback uses of its session (a Session is one). */
export interface PlaybackSession {
  readonly id: string;
  readonly log: Logger;
  readonly channel: Channel;
  /** The session's current playback, which a playback that ends clears if it is still that. */
  playback: Playback | undefined;
  /** Queues the playback's events in the session's order. */
  enqueue(task: () => Promise<unknown>): void;
  publish<N extends EventName>(payload: EventPayload<N>): Promise<void>;
}

/**
 * `files`: an app's playback/start; `silence`: an endless silence stream (playback/silence, a
 * recording's); `ringback`: what a transfer's caller hears while the new leg rings, which sends
 * no playback events.
 */
export type PlaybackKind = 'files' | 'silence' | 'ringback';

/** How a playback's application ended: its Application-Response, or undefined (channel gone). */
export type PlaybackEnd = string | undefined;

/**
 * One `playback` application run on a session, from execute to EXECUTE_COMPLETE of its
 * Application-UUID. PLAYBACK_START/STOP carry no Application-UUID: they belong to the playback
 * whose CHANNEL_EXECUTE has been seen and whose EXECUTE_COMPLETE has not (with event-lock our
 * applications never run nested). Publishes playback.started (files) and playback.stopped with
 * its own command_uid, whoever stopped it; a file that cannot be opened fires neither
 * PLAYBACK_START nor STOP, only EXECUTE_COMPLETE with FILE NOT FOUND.
 */
export class Playback {
  readonly applicationUuid = randomUUID();
  /** Replaced by a later playback or stopped: it must not (go on) play. */
  superseded = false;
  paused = false;
  /** Publishes no playback events: the silence stream of a recording (record/start's own). */
  quiet: boolean;
  private executing = false;
  private startedAt: number | undefined;
  private pausedAt: number | undefined;
  private pausedMs = 0;
  private offsetMs = 0;
  private ended = false;
  private startWaiters: Array<(started: boolean) => void> = [];
  private resolveEnd!: (end: PlaybackEnd) => void;
  /** Resolves when the application completed (or the channel went away). */
  readonly end = new Promise<PlaybackEnd>((resolve) => (this.resolveEnd = resolve));

  constructor(
    readonly session: PlaybackSession,
    readonly commandUid: string,
    readonly urls: readonly string[],
    readonly kind: PlaybackKind,
    private readonly onEnd: () => void = () => undefined,
  ) {
    this.quiet = kind === 'ringback';
  }

  get started(): boolean {
    return this.startedAt !== undefined;
  }

  get active(): boolean {
    return !this.ended;
  }

  /** Runs `playback <arg>` on the channel. */
  async play(arg: string): Promise<void> {
    const { channel } = this.session;
    channel.on('event', this.onEvent);
    channel.once('gone', this.onGone);
    try {
      await channel.execute('playback', arg, this.applicationUuid);
    } catch (err) {
      this.finish(undefined);
      throw err;
    }
  }

  /** Resolves true once playing, false if it ended first or after `timeoutMs`. */
  waitStarted(timeoutMs: number): Promise<boolean> {
    if (this.started) return Promise.resolve(true);
    if (this.ended) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), Math.max(0, timeoutMs));
      const settle = (started: boolean): void => {
        clearTimeout(timer);
        this.startWaiters = this.startWaiters.filter((w) => w !== settle);
        resolve(started);
      };
      this.startWaiters.push(settle);
    });
  }

  /** Stops it (last wins, playback/stop): breaks the media if it is on the channel. */
  async stop(): Promise<void> {
    this.superseded = true;
    if (this.ended || !this.executing) return;
    await this.break();
  }

  /** uuid_fileman pause toggles: the same command pauses and resumes. */
  async togglePause(): Promise<string> {
    const { channel } = this.session;
    const reply = await channel.api(`uuid_fileman ${channel.uuid} pause`);
    if (!reply.startsWith('+OK')) return reply;
    this.paused = !this.paused;
    if (this.paused) this.pausedAt = Date.now();
    else if (this.pausedAt !== undefined) {
      this.pausedMs += Date.now() - this.pausedAt;
      this.pausedAt = undefined;
    }
    return reply;
  }

  private async break(): Promise<void> {
    const { channel } = this.session;
    const reply = await channel.api(`uuid_break ${channel.uuid}`);
    if (!reply.startsWith('+OK')) this.session.log.warn({ reply }, 'uuid_break refused');
  }

  private readonly onEvent = (event: FsEvent): void => {
    switch (event.name) {
      case 'CHANNEL_EXECUTE':
        if (event.header('Application-UUID') !== this.applicationUuid) return;
        this.executing = true;
        // An endless silence stream (or a tone) is "playing" from the moment its application runs.
        if (this.kind !== 'files') this.markStarted();
        return;
      case 'PLAYBACK_START':
        if (!this.executing || this.started) return;
        this.markStarted();
        if (this.superseded) background(this.break(), this.session.log, 'uuid_break');
        else if (this.kind === 'files') {
          const payload = {
            event: 'playback.started' as const,
            session_uuid: this.session.id,
            command_uid: this.commandUid,
            urls: [...this.urls],
            file_path: this.urls.join(','),
          };
          this.session.enqueue(() => this.session.publish(payload));
        }
        return;
      case 'PLAYBACK_STOP':
        if (this.executing) this.offsetMs = offsetOf(event);
        return;
      case 'CHANNEL_EXECUTE_COMPLETE':
        if (event.header('Application-UUID') === this.applicationUuid)
          this.finish(event.header('Application-Response'));
        return;
    }
  };

  private readonly onGone = (): void => this.finish(undefined);

  private markStarted(): void {
    this.startedAt = Date.now();
    for (const waiter of [...this.startWaiters]) waiter(true);
  }

  private finish(response: PlaybackEnd): void {
    if (this.ended) return;
    this.ended = true;
    const { session } = this;
    session.channel.off('event', this.onEvent);
    session.channel.off('gone', this.onGone);
    for (const waiter of [...this.startWaiters]) waiter(false);
    if (session.playback === this) session.playback = undefined;
    if (!this.quiet && this.startedAt !== undefined && response !== undefined) {
      const now = Date.now();
      const paused = this.pausedMs + (this.pausedAt === undefined ? 0 : now - this.pausedAt);
      const payload = {
        event: 'playback.stopped' as const,
        session_uuid: session.id,
        command_uid: this.commandUid,
        urls: [...this.urls],
        file_path: this.urls.join(','),
        offset_ms: Math.max(0, Math.round(this.offsetMs)),
        duration_ms: Math.max(0, now - this.startedAt - paused),
      };
      session.enqueue(() => session.publish(payload));
    }
    this.onEnd();
    this.resolveEnd(response);
  }
}

/** Position at PLAYBACK_STOP: playback_last_offset_pos samples at the channel's rate. */
function offsetOf(event: FsEvent): number {
  const samples = Number(event.variable('playback_last_offset_pos'));
  const rate = Number(event.header('Channel-Read-Codec-Rate')) || 8000;
  return Number.isFinite(samples) ? (samples * 1000) / rate : 0;
}
