import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { recordingPath, RecordingStore } from '@voicegw/shared';
import type { NodeContext, Recordings } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import type {
  ActiveRecording,
  Capture,
  CaptureTarget,
  CompletedRecording,
  RecordedSession,
} from './capture.js';
import { FileCapture } from './file-capture.js';
import type { RecordingReceiver } from './receiver.js';
import { StreamCapture } from './stream-capture.js';
import { RecordingSweeper } from './sweeper.js';

/**
 * The recordings of this node's sessions: the WAV files under RECORDINGS_DIR (written by
 * FreeSWITCH in file mode, by this node from FreeSWITCH's stream in stream mode), their metadata
 * in Redis, at most one recording per session, and the retention sweeper. A recording ends by
 * record/stop, by the call's hangup or by FreeSWITCH; in every case the file is complete before
 * recording.completed is published.
 */
export class Recorder implements Recordings {
  readonly store: RecordingStore;
  private readonly active = new Map<RecordedSession, ActiveRecording>();
  private readonly sweeper: RecordingSweeper;

  /** `receiver`: the node's, which the node runs (media streams share its server). */
  constructor(
    private readonly node: NodeContext,
    private readonly receiver: RecordingReceiver,
  ) {
    const { config, redis, keys, scripts, log } = node;
    this.store = new RecordingStore(redis, keys, scripts);
    this.sweeper = new RecordingSweeper(
      this.store,
      config.RECORDINGS_DIR,
      config.RECORDING_SWEEP_INTERVAL_MS,
      log.child({ component: 'recording-sweeper' }),
    );
  }

  /** File mode always records; stream mode needs RECORDING_SERVICE_URL (its receiver's URL). */
  get enabled(): boolean {
    const { config } = this.node;
    return (
      config.RECORDING_MODE === 'file' ||
      (config.RECORDING_MODE === 'stream' && config.RECORDING_SERVICE_URL !== undefined)
    );
  }

  get retentionMs(): number {
    return this.node.config.RECORDING_RETENTION_HOURS * 3600 * 1000;
  }

  start(): void {
    this.sweeper.start();
  }

  /** Leaves the files of recordings still running complete (no events: the node is going away). */
  async close(): Promise<void> {
    await this.sweeper.stop();
    await Promise.allSettled(
      [...this.active.entries()].map(async ([session, rec]) => {
        this.active.delete(session);
        rec.unwatch();
        await rec.capture.abort();
      }),
    );
  }

  /** Deletes expired recordings now (`now` may be in the future: tests, operators). */
  sweep(now?: number): Promise<number> {
    return this.sweeper.sweep(now);
  }

  current(session: RecordedSession): ActiveRecording | undefined {
    return this.active.get(session);
  }

  /**
   * Prepares a recording: its capture (the file's directory, or the empty WAV and the receiver's
   * expectation of the stream) and its metadata. Its capture's begin() then has FreeSWITCH
   * start; `abandon` undoes it if FreeSWITCH refuses.
   */
  async prepare(
    session: RecordedSession,
    commandUid: string,
    sampleRate: number,
  ): Promise<ActiveRecording> {
    const id = randomUUID();
    const startedAt = Date.now();
    const relative = recordingPath(session.id, id);
    const path = join(this.node.config.RECORDINGS_DIR, relative);
    const target: CaptureTarget = {
      session,
      recordingId: id,
      path,
      sampleRate,
      // Only while this recording is the session's (not a later one).
      onLost: () => {
        if (this.active.get(session)?.id === id) this.finish(session);
      },
    };
    const recording: ActiveRecording = {
      id,
      commandUid,
      startedAt,
      capture: await this.capture(target, relative),
      silence: undefined,
      unwatch: this.watchHangup(session),
    };
    this.active.set(session, recording);
    try {
      await this.store.started(
        {
          recording_id: id,
          session_id: session.id,
          app_id: session.appId,
          node: this.node.prefix,
          command_uid: commandUid,
          sample_rate: sampleRate,
          started_at: startedAt,
        },
        this.retentionMs,
      );
    } catch (err) {
      await this.abandon(session);
      throw err;
    }
    return recording;
  }

  /** Drops a recording FreeSWITCH would not start; its empty file expires like any other. */
  async abandon(session: RecordedSession): Promise<void> {
    await this.complete(session).catch((err: unknown) =>
      session.log.warn({ err }, 'abandoned recording not marked stopped'),
    );
  }

  /**
   * Ends the session's recording: waits (briefly) for FreeSWITCH to finish the file, records
   * the stop (retention counts from now) and returns what recording.completed says; undefined
   * when the session is not recording.
   */
  async complete(session: RecordedSession): Promise<CompletedRecording | undefined> {
    const rec = this.active.get(session);
    if (!rec) return undefined;
    this.active.delete(session);
    rec.unwatch();
    const duration = await rec.capture.settle();
    const stoppedAt = Date.now();
    await this.store.stopped(session.id, rec.id, {
      stoppedAt,
      duration,
      expiresAt: stoppedAt + this.retentionMs,
    });
    session.log.info({ recording_id: rec.id, duration }, 'recording completed');
    return {
      recordingId: rec.id,
      commandUid: rec.commandUid,
      url: await this.recordingUrl(session.id, rec.id),
      duration,
    };
  }

  private capture(target: CaptureTarget, relative: string): Promise<Capture> {
    const { config } = this.node;
    if (config.RECORDING_MODE === 'file') {
      return FileCapture.create(
        target,
        config.FS_RECORDINGS_DIR ?? config.RECORDINGS_DIR,
        relative,
      );
    }
    if (config.RECORDING_SERVICE_URL === undefined) {
      throw new Error('recording is not configured on this media node');
    }
    return StreamCapture.create(target, this.receiver, config.RECORDING_SERVICE_URL);
  }

  /** Publishes recording.completed (in the session's order of events). */
  async publishCompleted(session: RecordedSession, done: CompletedRecording): Promise<void> {
    await session.publish({
      event: 'recording.completed',
      session_uuid: session.id,
      recording_url: done.url,
      duration: done.duration,
      command_uid: done.commandUid,
    });
  }

  /**
   * A hangup ends the recording too: queued on CHANNEL_HANGUP, it runs before the teardown that
   * CHANNEL_HANGUP_COMPLETE queues, so recording.completed precedes call.hangup.
   */
  private watchHangup(session: RecordedSession): () => void {
    const { channel } = session;
    const finish = (): void => this.finish(session);
    const onEvent = (event: FsEvent): void => {
      if (event.name === 'CHANNEL_HANGUP' || event.name === 'CHANNEL_HANGUP_COMPLETE') finish();
    };
    channel.on('event', onEvent);
    channel.once('gone', finish);
    return () => {
      channel.off('event', onEvent);
      channel.off('gone', finish);
    };
  }

  /** Ends the session's recording and publishes recording.completed, in the session's order. */
  private finish(session: RecordedSession): void {
    session.enqueue(async () => {
      const done = await this.complete(session);
      if (done) await this.publishCompleted(session, done);
    });
  }

  /** The api's public base URL is announced by the api (PUBLIC_BASE_URL) in Redis. */
  private async recordingUrl(sessionId: string, recordingId: string): Promise<string> {
    const path = `/api/v1/sessions/${sessionId}/recording/${recordingId}.wav`;
    let base: string | null = null;
    try {
      base = await this.node.redis.get(this.node.keys.publicBaseUrl());
    } catch (err) {
      this.node.log.warn({ err }, 'public base URL not read');
    }
    if (base === null) {
      this.node.log.warn('no api has announced PUBLIC_BASE_URL: recording_url is relative');
      return path;
    }
    return base.replace(/\/+$/, '') + path;
  }
}
