import { setTimeout as sleep } from 'node:timers/promises';
import { DEFERRED_TIMEOUT_MS, webhookSecret, type StreamStopReason } from '@voicegw/shared';
import type { WebSocket } from 'ws';
import type { FsEvent } from '../esl/event.js';
import { connectApp } from './app-socket.js';
import { connectedFrame, streamIdentity, type StreamIdentity } from './frames.js';
import type { RelayHost } from './host.js';
import { moduleFailure, startModuleStream, stopModuleStream } from './module.js';
import { TICK_MS } from './pacer.js';
import { Running } from './running.js';
import { publishStreamEnd, type StreamEnd } from './stream-end.js';
import type { StartReport, StreamedSession, StreamRequest } from './types.js';

/** FreeSWITCH's module must connect to this node, on loopback, within this once asked to start. */
export const FS_CONNECT_TIMEOUT_MS = 500;
/**
 * The application's socket must be open within this (DNS, connect, TLS, upgrade): what is left
 * of the deferred window the 202 promises (`timeout_ms`), so stream/start's command.result
 * comes within it like every deferred command's.
 */
export const APP_CONNECT_TIMEOUT_MS = DEFERRED_TIMEOUT_MS - FS_CONNECT_TIMEOUT_MS;
/**
 * Once the playout has halted, the module still holds a chunk in its 20 ms buffer and may have
 * its socket thread waiting to put the last one there. A stop that lands while it waits never
 * returns (FreeSWITCH 1.10.12, the module as published), and holds the event socket it came on:
 * the node's every later command and event. The module is stopped once both have played.
 */
export const MODULE_DRAIN_MS = 3 * TICK_MS;
/**
 * The module closes its socket as the call hangs up, and CHANNEL_HANGUP comes on the event
 * socket, often after (half the far-end hangups on FreeSWITCH 1.10.12). A close waits this long
 * for the hangup, or the module's ::error, to say why the stream ended before it is an error.
 */
export const FS_CLOSE_GRACE_MS = 1000;

/** Why a stream ends: its stream.stopped reason, or, if it never started, stream.failed's. */
export interface Ending {
  readonly reason: StreamStopReason;
  readonly failure: string;
  /** The module left the call on its own (its `::error`): nothing to stop. */
  readonly detached?: boolean;
}

/**
 * Whether the module may still be on the call as the stream ends, and so must be told to stop:
 * not after a hangup (FreeSWITCH removes it with the channel) nor after its own `::error`.
 */
const moduleAttached = (ending: Ending): boolean => ending.reason !== 'hangup' && !ending.detached;

/** Where a stream is: each phase holds exactly the sockets it has. */
type Phase =
  | { readonly name: 'connecting' }
  | { readonly name: 'starting'; readonly app: WebSocket }
  | { readonly name: 'running'; readonly running: Running }
  | { readonly name: 'ended' };

const ignore = (): void => undefined;

/**
 * One media stream, from its stream/start to its one stream.stopped or stream.failed. Opening:
 * the application's socket first (signed upgrade, `connected`), then FreeSWITCH's module is asked
 * to stream to this node's endpoint, and its connection makes the stream run (running.ts: the
 * audio both ways). Anything may end it meanwhile — stream/stop, the call's hangup, either socket
 * going, a module error — and the first reason wins: `ending` is set at once (the audio stops),
 * and the ending itself (closing, `uuid_audio_stream stop`, the event) runs in the session's
 * order, once, whoever asks.
 */
export class Relay {
  readonly identity: StreamIdentity;
  private phase: Phase = { name: 'connecting' };
  private ending: Ending | undefined;
  private concluded: Promise<void> | undefined;
  /** Aborts the connect to the application; dropped once it is over (a stream is long-lived). */
  private abort: AbortController | undefined = new AbortController();
  private cancelWait: (() => void) | undefined;
  private fsTimer: NodeJS.Timeout | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private resolveReported!: (done: Promise<void>) => void;
  /** Publishes stream.started and the stream/start's command.result, once (set when running). */
  private announce: (() => Promise<void>) | undefined;
  /** Settles once the stream/start's command.result is out (rejects if it could not be). */
  readonly reported = new Promise<void>((resolve) => (this.resolveReported = resolve));

  constructor(
    private readonly host: RelayHost,
    readonly session: StreamedSession,
    readonly request: StreamRequest,
    private readonly report: StartReport,
  ) {
    this.identity = streamIdentity(
      request.streamId,
      session.id,
      session.channel.uuid,
      session.appId,
    );
    session.channel.on('event', this.onChannelEvent);
    session.channel.on('gone', this.onGone);
    // Awaited by the stream/start; if that gave up first, a failure is logged where it happened.
    this.reported.catch(() => undefined);
  }

  get id(): string {
    return this.request.streamId;
  }

  /** Bidirectional and not ending: the application's audio is (or is about to be) the call's. */
  get playing(): boolean {
    return this.request.bidirectional && this.ending === undefined;
  }

  /** Opens the stream; resolves once its stream/start has been answered. */
  async open(): Promise<void> {
    try {
      await this.connect();
    } catch (err) {
      this.session.log.error({ err, stream_id: this.id }, 'media stream not opened');
      this.end({ reason: 'error', failure: 'the media node could not open the stream' });
    }
    return this.reported;
  }

  /** Refuses the stream at once (its session cannot have one now). */
  refuse(failure: string): Promise<void> {
    this.end({ reason: 'error', failure });
    return this.reported;
  }

  /** stream/stop, in the session's queue: true when this call stopped it. */
  async stop(): Promise<boolean> {
    if (this.ending) return false;
    this.halt({ reason: 'stopped', failure: 'stopped before it started' });
    await this.conclude();
    return true;
  }

  /** Ends it now, in the session's queue: its call is over (teardown) or the node closes. */
  async close(ending: Ending = { reason: 'hangup', failure: 'the call ended' }): Promise<void> {
    if (!this.ending) this.halt(ending);
    await this.conclude();
  }

  /** The session's own audio takes the call: what the application queued is dropped. */
  interrupt(): void {
    if (this.phase.name === 'running') this.phase.running.interrupt();
  }

  private async connect(): Promise<void> {
    const { node } = this.host;
    const { session, request } = this;
    const secret = await webhookSecret(node.redis, node.keys, session.appId);
    if (secret === undefined) {
      return this.end({ reason: 'error', failure: 'the application has no webhook secret' });
    }
    const connection = await connectApp({
      url: request.url,
      streamId: request.streamId,
      sessionId: session.id,
      secret,
      allowPrivate: node.config.ALLOW_LOCALHOST_WEBHOOKS,
      timeoutMs: APP_CONNECT_TIMEOUT_MS,
      signal: this.abort?.signal ?? AbortSignal.abort(),
    });
    this.abort = undefined;
    if (!connection.ok) return this.end({ reason: 'error', failure: connection.reason });
    const app = connection.socket;
    app.on('error', ignore);
    if (this.ending) {
      app.terminate();
      return;
    }
    this.phase = { name: 'starting', app };
    app.on('close', this.onAppClose);
    app.send(connectedFrame());
    await session.serial(() => this.startFreeswitch());
  }

  /** In the session's queue: the module is asked to stream to this node. */
  private async startFreeswitch(): Promise<void> {
    if (this.ending) return;
    this.cancelWait = this.host.endpoint.expect(this.id, this.onFreeswitch);
    this.fsTimer = setTimeout(
      () =>
        this.end({
          reason: 'error',
          failure: `FreeSWITCH did not connect within ${FS_CONNECT_TIMEOUT_MS} ms`,
        }),
      FS_CONNECT_TIMEOUT_MS,
    );
    const url = this.host.freeswitchUrl(this.id);
    const refusal = await startModuleStream(this.session.channel, url, this.request.track);
    if (refusal !== undefined) this.end({ reason: 'error', failure: refusal });
  }

  /** FreeSWITCH's module connected: the stream runs. */
  private readonly onFreeswitch = (fs: WebSocket): void => {
    this.stopWaiting();
    fs.on('error', ignore);
    if (this.ending || this.phase.name !== 'starting') {
      fs.terminate();
      return;
    }
    const { app } = this.phase;
    const running = new Running(this.host, this.identity, this.request, app, fs, this.onFsClosed);
    this.phase = { name: 'running', running };
    const { session } = this;
    running.begin({
      customParameters: this.request.customParameters,
      from: session.callerId,
      to: session.did,
      bidirectional: this.request.bidirectional,
    });
    const { request } = this;
    const event = {
      event: 'stream.started' as const,
      session_uuid: this.session.id,
      stream_id: request.streamId,
      command_uid: request.commandUid,
      url: request.url,
      track: request.track,
      bidirectional: request.bidirectional,
    };
    // Queued now, so that whatever the session does next is reported after it; an ending that
    // runs first (a stream/stop queued before this) reports it first itself.
    let announced: Promise<void> | undefined;
    this.announce = () => (announced ??= this.report.started(event));
    this.resolveReported(this.session.serial(this.announce));
  };

  private readonly onFsClosed = (): void => {
    this.closeTimer ??= setTimeout(
      () => this.end({ reason: 'error', failure: 'FreeSWITCH closed the stream' }),
      FS_CLOSE_GRACE_MS,
    );
  };

  private readonly onAppClose = (): void =>
    this.end({ reason: 'closed_by_app', failure: 'the application closed the connection' });

  private readonly onChannelEvent = (event: FsEvent): void => {
    switch (event.name) {
      // Before CHANNEL_HANGUP_COMPLETE queues the teardown: stream.stopped precedes call.hangup.
      case 'CHANNEL_HANGUP':
      case 'CHANNEL_HANGUP_COMPLETE':
        return this.end({ reason: 'hangup', failure: 'the call ended' });
      case 'DTMF':
        if (this.phase.name === 'running') this.phase.running.dtmf(event.header('DTMF-Digit'));
        return;
      case 'CUSTOM': {
        if (this.phase.name !== 'starting' && this.phase.name !== 'running') return;
        const failed = moduleFailure(event);
        if (failed !== undefined) this.end({ reason: 'error', ...failed });
      }
    }
  };

  private readonly onGone = (): void => this.end({ reason: 'hangup', failure: 'the call ended' });

  /** Ends the stream for this reason, unless it is ending already; the rest is queued. */
  private end(ending: Ending): void {
    if (this.ending) return;
    this.halt(ending);
    this.session.enqueue(() => this.conclude());
  }

  /** Stops everything that moves at once: listeners, timers, the audio, a connect under way. */
  private halt(ending: Ending): void {
    this.ending = ending;
    this.session.channel.off('event', this.onChannelEvent);
    this.session.channel.off('gone', this.onGone);
    this.stopWaiting();
    this.abort?.abort();
    if (this.phase.name === 'starting') this.phase.app.off('close', this.onAppClose);
    if (this.phase.name === 'running') {
      this.phase.running.app.off('close', this.onAppClose);
      this.phase.running.halt();
    }
  }

  private stopWaiting(): void {
    this.cancelWait?.();
    this.cancelWait = undefined;
    clearTimeout(this.fsTimer);
    this.fsTimer = undefined;
    clearTimeout(this.closeTimer);
  }

  /** Runs the ending once, whoever asks first (the queue, stream/stop, the teardown). */
  private conclude(): Promise<void> {
    return (this.concluded ??= this.windDown());
  }

  private async windDown(): Promise<void> {
    const phase = this.phase;
    const ending = this.ending ?? { reason: 'error', failure: 'ended' };
    this.phase = { name: 'ended' };
    const { session, request } = this;
    const ids = {
      session_uuid: session.id,
      stream_id: request.streamId,
      command_uid: request.commandUid,
    };
    try {
      if (phase.name === 'running') {
        const stats = phase.running.finish(ending.reason);
        if (moduleAttached(ending)) {
          if (request.bidirectional) await sleep(MODULE_DRAIN_MS);
          await stopModuleStream(session.channel, session.log);
        }
        phase.running.dropFreeswitch();
        await this.announce?.();
        await this.publishEnd({
          event: 'stream.stopped',
          ...ids,
          reason: ending.reason,
          duration_ms: stats.durationMs,
          frames_sent: stats.framesSent,
          frames_received: stats.framesReceived,
        });
        return;
      }
      if (phase.name === 'starting') {
        phase.app.close(1011, 'stream failed');
        // The module may have taken the start without connecting: it must not stay attached.
        if (moduleAttached(ending)) await stopModuleStream(session.channel, session.log, true);
      }
      session.log.info({ stream_id: this.id, reason: ending.failure }, 'media stream failed');
      await this.publishEnd({
        event: 'stream.failed',
        ...ids,
        url: request.url,
        reason: ending.failure,
      });
      this.resolveReported(this.report.failed(ending.failure));
      await this.reported;
    } catch (err) {
      // Not published (the node is shutting down through a Redis outage): the stream/start is
      // not acknowledged without its result.
      this.resolveReported(Promise.reject(err instanceof Error ? err : new Error(String(err))));
      throw err;
    } finally {
      this.host.released(this);
    }
  }

  private async publishEnd(payload: StreamEnd): Promise<void> {
    const { session } = this;
    await publishStreamEnd(this.host.node, session.appId, payload, session.metadata);
  }
}
