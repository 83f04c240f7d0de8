import type { Redis } from 'ioredis';
import type { RedisKeys } from '../redis/keys.js';
import { recordingExpired } from '../redis/lua/recordingExpired.js';
import { recordingStarted } from '../redis/lua/recordingStarted.js';
import { recordingStopped } from '../redis/lua/recordingStopped.js';
import type { LuaScripts } from '../redis/scripts.js';

/** The recording metadata the media node writes and the api reads (one hash per recording). */
export interface RecordingRecord {
  readonly recording_id: string;
  readonly session_id: string;
  readonly app_id: string;
  /** Prefix of the media node that recorded it. */
  readonly node: string;
  /** command_uid of the record/start that began it. */
  readonly command_uid: string;
  /** The WAV file, relative to RECORDINGS_DIR: `<session id>/<recording id>.wav`. */
  readonly path: string;
  readonly sample_rate: number;
  readonly status: 'recording' | 'completed';
  /** Epoch ms. */
  readonly started_at: number;
  /** Epoch ms; absent while recording. */
  readonly stopped_at?: number;
  /** Seconds of audio; absent while recording. */
  readonly duration?: number;
  /** Epoch ms after which the recording is gone (404), counted from the stop. */
  readonly expires_at?: number;
}

export type NewRecording = Pick<
  RecordingRecord,
  'recording_id' | 'session_id' | 'app_id' | 'node' | 'command_uid' | 'sample_rate' | 'started_at'
>;

/** A recording still running after this long is treated as lost (its node died): swept anyway. */
export const RECORDING_FALLBACK_MS = 7 * 24 * 3600 * 1000;

/** The WAV's path relative to RECORDINGS_DIR. */
export const recordingPath = (sessionId: string, recordingId: string): string =>
  `${sessionId}/${recordingId}.wav`;

const member = (sessionId: string, recordingId: string): string => `${sessionId}/${recordingId}`;

/**
 * Recording metadata in Redis (keys from RedisKeys, changes through the recording* scripts): the
 * media node records starts and stops, the api looks recordings up, the sweeper expires them.
 */
export class RecordingStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    private readonly scripts: LuaScripts,
  ) {}

  async started(rec: NewRecording, retentionMs: number): Promise<void> {
    const { session_id: sessionId, recording_id: id } = rec;
    const fields: Record<string, string> = {
      recording_id: id,
      session_id: sessionId,
      app_id: rec.app_id,
      node: rec.node,
      command_uid: rec.command_uid,
      path: recordingPath(sessionId, id),
      sample_rate: String(rec.sample_rate),
      status: 'recording',
      started_at: String(rec.started_at),
    };
    await this.scripts.run(
      recordingStarted(
        { ...this.recordingKeys(sessionId, id), session: this.keys.session(sessionId) },
        {
          member: member(sessionId, id),
          recordingId: id,
          expiresAt: rec.started_at + RECORDING_FALLBACK_MS + retentionMs,
          fields: Object.entries(fields).flat(),
        },
      ),
    );
  }

  /** Marks it completed; false when its metadata is already gone. */
  async stopped(
    sessionId: string,
    recordingId: string,
    stop: { readonly stoppedAt: number; readonly duration: number; readonly expiresAt: number },
  ): Promise<boolean> {
    const fields = {
      status: 'completed',
      stopped_at: String(stop.stoppedAt),
      duration: String(stop.duration),
      expires_at: String(stop.expiresAt),
    };
    const done = await this.scripts.run(
      recordingStopped(this.recordingKeys(sessionId, recordingId), {
        member: member(sessionId, recordingId),
        recordingId,
        expiresAt: stop.expiresAt,
        fields: Object.entries(fields).flat(),
      }),
    );
    return Number(done) === 1;
  }

  async get(sessionId: string, recordingId: string): Promise<RecordingRecord | undefined> {
    const raw = await this.redis.hgetall(this.keys.recording(sessionId, recordingId));
    return raw.app_id === undefined ? undefined : parseRecording(raw);
  }

  /** The session's latest recording (running or completed), if any is left. */
  async latest(sessionId: string): Promise<RecordingRecord | undefined> {
    const id = await this.redis.get(this.keys.sessionRecording(sessionId));
    return id === null ? undefined : this.get(sessionId, id);
  }

  /** Recordings whose expiry has passed, oldest first: `{sessionId, recordingId, path}`. */
  async due(now: number, limit: number): Promise<ExpiredRecording[]> {
    const members = await this.redis.zrangebyscore(
      this.keys.recordingExpiry(),
      '-inf',
      now,
      'LIMIT',
      0,
      limit,
    );
    return members.flatMap((m) => {
      const slash = m.indexOf('/');
      if (slash < 0) return [];
      const sessionId = m.slice(0, slash);
      const recordingId = m.slice(slash + 1);
      return [{ sessionId, recordingId, path: recordingPath(sessionId, recordingId) }];
    });
  }

  /** Forgets an expired recording's metadata; false when it was not due (or already gone). */
  async expire(rec: ExpiredRecording, now: number): Promise<boolean> {
    const done = await this.scripts.run(
      recordingExpired(this.recordingKeys(rec.sessionId, rec.recordingId), {
        member: member(rec.sessionId, rec.recordingId),
        recordingId: rec.recordingId,
        now,
      }),
    );
    return Number(done) === 1;
  }

  /** The keys every recording script takes. */
  private recordingKeys(sessionId: string, recordingId: string) {
    return {
      recording: this.keys.recording(sessionId, recordingId),
      latest: this.keys.sessionRecording(sessionId),
      expiry: this.keys.recordingExpiry(),
    };
  }
}

export interface ExpiredRecording {
  readonly sessionId: string;
  readonly recordingId: string;
  /** Relative to RECORDINGS_DIR. */
  readonly path: string;
}

export function parseRecording(raw: Record<string, string>): RecordingRecord {
  const num = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const stoppedAt = num(raw.stopped_at);
  const duration = num(raw.duration);
  const expiresAt = num(raw.expires_at);
  return {
    recording_id: raw.recording_id ?? '',
    session_id: raw.session_id ?? '',
    app_id: raw.app_id ?? '',
    node: raw.node ?? '',
    command_uid: raw.command_uid ?? '',
    path: raw.path ?? '',
    sample_rate: Number(raw.sample_rate ?? 8000),
    status: raw.status === 'completed' ? 'completed' : 'recording',
    started_at: Number(raw.started_at ?? 0),
    ...(stoppedAt === undefined ? {} : { stopped_at: stoppedAt }),
    ...(duration === undefined ? {} : { duration }),
    ...(expiresAt === undefined ? {} : { expires_at: expiresAt }),
  };
}
