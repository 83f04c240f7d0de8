import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { recordingPath, RecordingStore } from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import type { Playback } from '../session/playback.js';
import type { Session } from '../session/session.js';
import { RecordingReceiver, type ExpectedStream } from './receiver.js';
import { RecordingSweeper } from './sweeper.js';
import { WavWriter } from './wav-writer.js';

/**
 * How long a stop waits for FreeSWITCH to close the stream (its last frames) before the file is
 * finalised with what has arrived; record/stop answers at once, so this stays short.
 */
const STREAM_END_TIMEOUT_MS = 1000;

/** One recording in progress on a session. */
export interface ActiveRecording {
  readonly id: string;
  /** command_uid of the record/start, carried by recording.completed. */
  readonly commandUid: string;
  readonly startedAt: number;
  readonly writer: WavWriter;
  readonly stream: ExpectedStream;
  /** The endless silence stream record/start started (stopped by record/stop). */
  silence: Playback | undefined;
  /** Stops watching the channel for its hangup. */
  readonly unwatch: () => void;
}

/** What a stopped recording reports in recording.completed. */
export interface CompletedRecording {
  readonly recordingId: string;
  readonly commandUid: string;
  readonly url: string;
  /** Seconds of audio in the file. */
  readonly duration: number;
}

/**
 * The recordings of this node's sessions: the WebSocket receiver FreeSWITCH streams to, the WAV
 * files under RECORDINGS_DIR, their metadata in Redis, at most one recording per session, and
 * the retention sweeper. A recording ends by record/stop or by the call's hangup; either way
 * the file is finalised before recording.completed is published.
 */
export class Recorder {
  readonly store: RecordingStore;
  private readonly active = new Map<Session, ActiveRecording>();
  private readonly receiver: RecordingReceiver | undefined;
  private readonly sweeper: RecordingSweeper;

  constructor(private readonly node: NodeContext) {
    const { config, redis, keys, scripts, log } = node;
    this.store = new RecordingStore(redis, keys, scripts);
    if (config.RECORDING_SERVICE_URL !== undefined) {
      this.receiver = new RecordingReceiver(
        { host: config.RECORDING_HOST, port: config.RECORDING_PORT },
        log.child({ component: 'recording-receiver' }),
      );
    }
    this.sweeper = new RecordingSweeper(
      this.store,
      config.RECORDINGS_DIR,
      config.RECORDING_SWEEP_INTERVAL_MS,
      log.child({ component: 'recording-sweeper' }),
    );
  }

  /** Recording needs RECORDING_SERVICE_URL (the receiver's address as FreeSWITCH reaches it). */
  get enabled(): boolean {
    return this.receiver !== undefined;
  }

  get retentionMs(): number {
    return this.node.config.RECORDING_RETENTION_HOURS * 3600 * 1000;
  }

  async start(): Promise<void> {
    const port = await this.receiver?.listen();
    if (port !== undefined) this.node.log.info({ port }, 'recording receiver listening');
    this.sweeper.start();
  }

  /** Finalises the files of recordings still running (no events: the node is going away). */
  async close(): Promise<void> {
    await this.sweeper.stop();
    await Promise.allSettled(
      [...this.active.entries()].map(async ([session, rec]) => {
        this.active.delete(session);
        rec.unwatch();
        await rec.stream.end(0);
        await rec.writer.finish();
      }),
    );
    await this.receiver?.close();
  }

  /** Deletes expired recordings now (`now` may be in the future: tests, operators). */
  sweep(now?: number): Promise<number> {
    return this.sweeper.sweep(now);
  }

  current(session: Session): ActiveRecording | undefined {
    return this.active.get(session);
  }

  /**
   * Prepares a recording: the WAV file (empty, valid), the receiver's expectation of its stream
   * and its metadata. Returns it with the URL FreeSWITCH must stream to; `abandon` undoes it
   * if FreeSWITCH refuses.
   */
  async prepare(
    session: Session,
    commandUid: string,
    sampleRate: number,
  ): Promise<{ readonly recording: ActiveRecording; readonly streamUrl: string }> {
    const { config } = this.node;
    if (!this.receiver || config.RECORDING_SERVICE_URL === undefined) {
      throw new Error('recording is not configured on this media node');
    }
    const id = randomUUID();
    const startedAt = Date.now();
    const path = join(config.RECORDINGS_DIR, recordingPath(session.id, id));
    const writer = await WavWriter.create(path, sampleRate);
    const stream = this.receiver.expect(session.id, id, { audio: (f) => writer.append(f) });
    const recording: ActiveRecording = {
      id,
      commandUid,
      startedAt,
      writer,
      stream,
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
    const base = config.RECORDING_SERVICE_URL.replace(/\/+$/, '');
    return { recording, streamUrl: `${base}/${session.id}/${id}` };
  }

  /** Drops a recording FreeSWITCH would not start; its empty file expires like any other. */
  async abandon(session: Session): Promise<void> {
    await this.complete(session).catch((err: unknown) =>
      session.log.warn({ err }, 'abandoned recording not marked stopped'),
    );
  }

  /**
   * Ends the session's recording: waits (briefly) for FreeSWITCH to close the stream, finalises
   * the WAV, records the stop (retention counts from now) and returns what recording.completed
   * says; undefined when the session is not recording.
   */
  async complete(session: Session): Promise<CompletedRecording | undefined> {
    const rec = this.active.get(session);
    if (!rec) return undefined;
    this.active.delete(session);
    rec.unwatch();
    await rec.stream.end(STREAM_END_TIMEOUT_MS);
    const bytes = await rec.writer.finish();
    if (rec.writer.failure)
      session.log.error({ err: rec.writer.failure }, 'recording write failed');
    const stoppedAt = Date.now();
    const duration = Math.round((bytes / (rec.writer.sampleRate * 2)) * 1000) / 1000;
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

  /** Publishes recording.completed (in the session's order of events). */
  async publishCompleted(session: Session, done: CompletedRecording): Promise<void> {
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
  private watchHangup(session: Session): () => void {
    const { channel } = session;
    const finish = (): void => {
      session.enqueue(async () => {
        const done = await this.complete(session);
        if (done) await this.publishCompleted(session, done);
      });
    };
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
