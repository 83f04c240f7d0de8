// One simulated FreeSWITCH channel (one UUID): its state machine, variables and the event
// sequences of ringing, early media, answer, DTMF and hangup in the order of the traces.
import type { Logger } from '@voicegw/shared';
import type { FsEvent, Header } from '../esl/event.js';
import { normalizeCause, q850 } from './causes.js';
import { Executor, type AppHandle } from './executor.js';
import { TEARDOWN_DELAY_MS, sleep } from './timing.js';
import type { CallAudio, CallAudioRegistry } from '../media/call-audio.js';
import {
  channelHeaders,
  localStamp,
  nowMicros,
  type AnswerState,
  type CallState,
  type CallerProfile,
  type ChannelStateName,
  type ChannelTimes,
  type OtherLeg,
} from './channel-headers.js';

/** What a channel uses of its switch (a SimContext is one). */
export interface ChannelHost {
  readonly log: Logger;
  /** The live channels by uuid: a channel is in it from its creation to its teardown. */
  readonly channels: Map<string, Channel>;
  /** Every call's audio tracks, kept a while after the call ends. */
  readonly audio: CallAudioRegistry;
  /** Counts sessions for `status` and HEARTBEAT. */
  noteSession(): void;
  fireIfHeard(name: string, addHeaders: (event: FsEvent) => void): void;
  /** Starts application `app` on `channel`; undefined: no such application. */
  launch(channel: Channel, app: string, arg: string): AppHandle | undefined;
}

export interface ChannelInit {
  readonly uuid: string;
  readonly name: string;
  readonly profile: CallerProfile;
  readonly vars?: ReadonlyArray<readonly [string, string]>;
}

/** Something attached to the channel's media (recording, audio stream) that ends at hangup. */
export interface MediaBug {
  stopOnHangup(): void;
}

export interface FireOptions {
  /** Include variable_* headers (most channel events do; DTMF, STATE, OUTGOING do not). */
  readonly vars?: boolean;
  readonly pre?: Header[];
  readonly tail?: Header[];
}

export class Channel {
  readonly uuid: string;
  readonly name: string;
  readonly profile: CallerProfile;
  readonly vars = new Map<string, string>();
  readonly times: ChannelTimes;
  readonly executor: Executor;
  readonly bugs = new Set<MediaBug>();
  /** What the caller says and what the call hears. */
  readonly audio: CallAudio;
  state: ChannelStateName = 'CS_NEW';
  callState: CallState = 'DOWN';
  answerState: AnswerState = 'ringing';
  hitDialplan = false;
  /** Files playing into the leg: a writer, which mod_audio_stream's mixed/stereo need. */
  playing = 0;
  hangupCause: string | undefined;
  /** The other channel of its last bridge, in its caller profile (Other-Leg-* headers). */
  otherLeg: OtherLeg | undefined;
  /** uuid_transfer is taking it to a new dialplan: a bridge it leaves neither parks nor ends it. */
  transferring = false;
  /** The other leg (loopback pair); it hangs up with this one. */
  peer: Channel | undefined;
  /** Cause the peer gets when this leg hangs up (loopback semantics differ per leg). */
  peerCause: (cause: string) => string = (cause) => cause;
  /** How the peer learns this leg is gone; by default it hangs up with peerCause(cause). */
  releasePeer: (peer: Channel, cause: string) => void = (peer, cause) => {
    peer.hangup(this.peerCause(cause));
  };
  /**
   * How DTMF sent toward the far end leaves this channel (a SIP trunk leg sends it to the
   * other simulator as RFC 2833); undefined for channels whose far end is simulated here.
   */
  sendDtmf: ((digit: string, samples: number) => void) | undefined;
  /** Runs just before CHANNEL_ANSWER (a loopback B leg answers its A leg first). */
  beforeAnswer: (() => void) | undefined;
  private readonly hangupHooks: Array<(cause: string) => void> = [];
  private readonly answerHooks: Array<() => void> = [];
  private readonly earlyMediaHooks: Array<() => void> = [];
  private hungUp = false;
  private resolveEnded!: () => void;
  readonly ended = new Promise<void>((r) => (this.resolveEnded = r));

  constructor(
    private readonly ctx: ChannelHost,
    init: ChannelInit,
  ) {
    this.uuid = init.uuid;
    this.name = init.name;
    this.profile = init.profile;
    const created = nowMicros();
    this.times = { created, answered: 0, progress: 0, progressMedia: 0, hangup: 0 };
    for (const [k, v] of init.vars ?? []) this.vars.set(k, v);
    this.executor = new Executor(this, (app, arg) => ctx.launch(this, app, arg), ctx.log);
    ctx.channels.set(this.uuid, this);
    this.audio = ctx.audio.open(this.uuid);
    ctx.noteSession();
  }

  get alive(): boolean {
    return !this.hungUp;
  }

  get answered(): boolean {
    return this.times.answered > 0;
  }

  /** Media flows (answered or early media): switch_channel_media_ready. */
  get mediaReady(): boolean {
    return this.answered || this.times.progressMedia > 0;
  }

  onHangup(fn: (cause: string) => void): void {
    this.hangupHooks.push(fn);
  }

  onAnswer(fn: () => void): void {
    this.answerHooks.push(fn);
  }

  /** Runs once at early media (183 with SDP), unless the channel is answered first. */
  onEarlyMedia(fn: () => void): void {
    this.earlyMediaHooks.push(fn);
  }

  fire(name: string, opts: FireOptions = {}): void {
    this.ctx.fireIfHeard(name, (ev) =>
      ev.headers.push(
        ...(opts.pre ?? []),
        ...channelHeaders(this, opts.vars ?? true),
        ...(opts.tail ?? []),
      ),
    );
  }

  setState(state: ChannelStateName): void {
    this.state = state;
    this.fire('CHANNEL_STATE', { vars: false });
  }

  ringReady(): void {
    if (this.times.progress || !this.alive) return;
    this.times.progress = nowMicros();
    this.callState = 'RINGING';
    this.fire('CHANNEL_PROGRESS');
  }

  preAnswer(): void {
    if (this.times.progressMedia || this.answered || !this.alive) return;
    this.times.progressMedia = nowMicros();
    this.callState = 'EARLY';
    this.answerState = 'early';
    this.fire('CHANNEL_PROGRESS_MEDIA');
    for (const fn of this.earlyMediaHooks.splice(0)) fn();
  }

  answer(): void {
    if (this.answered || !this.alive) return;
    this.beforeAnswer?.();
    this.times.answered = nowMicros();
    this.callState = 'ACTIVE';
    this.answerState = 'answered';
    this.vars.set('endpoint_disposition', 'ANSWER');
    this.fire('CHANNEL_ANSWER');
    for (const fn of this.answerHooks.splice(0)) fn();
  }

  /**
   * A DTMF digit arrives: the DTMF event first, then the application on top sees it (a
   * collecting application stops its prompt, which is why PLAYBACK_STOP follows the event).
   */
  dtmf(digit: string, durationSamples: number, source: string): void {
    if (!this.alive) return;
    this.fire('DTMF', {
      vars: false,
      tail: [
        ['DTMF-Digit', digit],
        ['DTMF-Duration', String(durationSamples)],
        ['DTMF-Source', source],
      ],
    });
    this.executor.dtmf(digit, durationSamples);
  }

  /**
   * CHANNEL_HANGUP now; the rest (applications complete, CS_HANGUP, media bugs stop,
   * CHANNEL_HANGUP_COMPLETE, CHANNEL_DESTROY) after `delayMs`, as the session thread does.
   */
  hangup(causeIn?: string, delayMs = 0): boolean {
    if (this.hungUp) return false;
    this.hungUp = true;
    const cause = normalizeCause(causeIn);
    this.hangupCause = cause;
    this.times.hangup = nowMicros();
    this.answerState = 'hangup';
    this.callState = 'HANGUP';
    this.fire('CHANNEL_HANGUP');
    for (const fn of this.hangupHooks.splice(0)) fn(cause);
    void this.teardown(delayMs);
    return true;
  }

  /** uuid_kill and far-end hangups: the teardown runs one media frame later. */
  kill(cause?: string): boolean {
    return this.hangup(cause, TEARDOWN_DELAY_MS);
  }

  private async teardown(delayMs: number): Promise<void> {
    if (delayMs > 0) await sleep(delayMs);
    else await Promise.resolve();
    await this.executor.unwind();
    this.setState('CS_HANGUP');
    for (const bug of [...this.bugs]) bug.stopOnHangup();
    this.bugs.clear();
    const peer = this.peer;
    if (peer?.alive) this.releasePeer(peer, this.hangupCause ?? 'NORMAL_CLEARING');
    this.state = 'CS_REPORTING';
    this.fire('CHANNEL_STATE', { vars: false });
    // FreeSWITCH sets these in the reporting state, so only HANGUP_COMPLETE/DESTROY carry them.
    this.vars.set('hangup_cause', this.hangupCause ?? 'NORMAL_CLEARING');
    this.vars.set('hangup_cause_q850', String(q850(this.hangupCause ?? 'NORMAL_CLEARING')));
    this.setBillingVars();
    this.fire('CHANNEL_HANGUP_COMPLETE', { pre: [['Hangup-Cause', this.hangupCause ?? '']] });
    this.fire('CHANNEL_DESTROY');
    this.setState('CS_DESTROY');
    this.ctx.channels.delete(this.uuid);
    this.ctx.audio.close(this.uuid);
    this.resolveEnded();
  }

  private setBillingVars(): void {
    const t = this.times;
    const end = t.hangup;
    const us = (from: number) => (from ? Math.max(0, end - from) : 0);
    const set = (k: string, v: number | string) => this.vars.set(k, String(v));
    const epoch = (u: number) => Math.floor(u / 1_000_000);
    set('start_stamp', localStamp(t.created / 1000));
    if (t.answered) set('answer_stamp', localStamp(t.answered / 1000));
    set('end_stamp', localStamp(end / 1000));
    set('start_epoch', epoch(t.created));
    set('start_uepoch', t.created);
    set('answer_epoch', epoch(t.answered));
    set('answer_uepoch', t.answered);
    set('progress_epoch', epoch(t.progress));
    set('progress_media_epoch', epoch(t.progressMedia));
    set('end_epoch', epoch(end));
    set('end_uepoch', end);
    set('duration', Math.floor(us(t.created) / 1_000_000));
    set('billsec', Math.floor(us(t.answered) / 1_000_000));
    set('progresssec', t.progress ? Math.floor((t.progress - t.created) / 1_000_000) : 0);
    set('answersec', t.answered ? Math.floor((t.answered - t.created) / 1_000_000) : 0);
    set('waitsec', t.answered ? Math.floor((t.answered - t.created) / 1_000_000) : 0);
    set('mduration', Math.floor(us(t.created) / 1000));
    set('billmsec', Math.floor(us(t.answered) / 1000));
    set('uduration', us(t.created));
    set('billusec', us(t.answered));
    if (!this.vars.has('endpoint_disposition')) set('endpoint_disposition', 'EARLY MEDIA');
    set('digits_dialed', 'none');
  }
}
