import type { ChainableCommander, Redis } from 'ioredis';
import { HANGUP_CAUSES, type HangupCause } from '../events/payloads.js';
import type { RedisKeys } from '../redis/keys.js';

/** Membership of a session in a conference room, as the api and the media node see it. */
export type ConferenceState = 'none' | 'joining' | 'joined' | 'leaving';
export type DialStatus = 'dialing' | 'ringing' | 'early_media' | 'answered' | 'ended';

/**
 * A session hash in Redis. Field names are a contract shared with the Lua scripts
 * (`sessionCommand.lua` reads `app_id`, `conf_*`, `ended_at`, `stream`), so they are listed here
 * once.
 */
export interface SessionRecord {
  readonly app_id: string;
  /** Prefix of the media node that owns the call. */
  readonly node: string;
  readonly direction: 'inbound' | 'outbound';
  readonly caller_id: string;
  readonly did: string;
  /** Epoch ms. */
  readonly created_at: number;
  readonly conf_room: string;
  readonly conf_state: ConferenceState;
  readonly conf_member_id: string;
  readonly conf_muted: boolean;
  readonly dial_status?: DialStatus;
  /** ISO-8601. */
  readonly dial_started_at?: string;
  readonly metadata?: Record<string, unknown>;
  /** Epoch ms the call was answered (by itself or by an answer command). */
  readonly answered_at?: number;
  /** Epoch ms of its call.hangup; the hash then expires after SESSION_GRACE_SEC. */
  readonly ended_at?: number;
  readonly hangup_cause?: HangupCause;
  readonly duration_seconds?: number;
  /** Every recording started on the session, oldest first. */
  readonly recording_ids: readonly string[];
  /**
   * The running media stream's id (the operation_id of its stream/start), absent when none: set
   * by stream/start in sessionCommands-n.lua (with its command_uid in `stream_uid`), cleared by
   * the media node when the stream ends, or by the sweeper when that node died (streamEnded).
   */
  readonly stream?: string;
}

export type NewSession = Pick<
  SessionRecord,
  'app_id' | 'node' | 'direction' | 'caller_id' | 'did'
> &
  Partial<
    Pick<
      SessionRecord,
      'dial_status' | 'dial_started_at' | 'metadata' | 'created_at' | 'answered_at'
    >
  >;

export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(sessionId: string, session: NewSession): Promise<void> {
    await addSession(this.redis.multi(), this.keys, sessionId, session).exec();
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const raw = await this.redis.hgetall(this.keys.session(sessionId));
    return raw.app_id === undefined ? undefined : parseSession(raw);
  }
}

/**
 * Queues the writes of a new session on `pipeline`: its hash and its entry in the app's index of
 * live sessions (what GET /sessions reads), scored by the same created_at.
 */
export function addSession(
  pipeline: ChainableCommander,
  keys: RedisKeys,
  sessionId: string,
  session: NewSession,
): ChainableCommander {
  const fields = sessionFields(session);
  return pipeline
    .hset(keys.session(sessionId), fields)
    .zadd(
      keys.appSessions(session.app_id, 'live', session.direction),
      fields.created_at ?? 0,
      sessionId,
    );
}

/**
 * The hash fields of a new session, as strings. Exported so that Lua scripts that create a
 * session atomically with other changes (placeDial) write exactly the layout `create` writes.
 */
export function sessionFields(session: NewSession): Record<string, string> {
  const fields: Record<string, string> = {
    app_id: session.app_id,
    node: session.node,
    direction: session.direction,
    caller_id: session.caller_id,
    did: session.did,
    created_at: String(session.created_at ?? Date.now()),
    conf_room: '',
    conf_state: 'none',
    conf_member_id: '',
    conf_muted: '0',
  };
  if (session.dial_status) fields.dial_status = session.dial_status;
  if (session.dial_started_at) fields.dial_started_at = session.dial_started_at;
  if (session.metadata) fields.metadata = JSON.stringify(session.metadata);
  if (session.answered_at !== undefined) fields.answered_at = String(session.answered_at);
  return fields;
}

export function parseSession(raw: Record<string, string>): SessionRecord {
  return {
    app_id: raw.app_id ?? '',
    node: raw.node ?? '',
    direction: raw.direction === 'outbound' ? 'outbound' : 'inbound',
    caller_id: raw.caller_id ?? '',
    did: raw.did ?? '',
    created_at: Number(raw.created_at ?? 0),
    conf_room: raw.conf_room ?? '',
    conf_state: (raw.conf_state as ConferenceState | undefined) ?? 'none',
    conf_member_id: raw.conf_member_id ?? '',
    conf_muted: raw.conf_muted === '1',
    ...(raw.dial_status ? { dial_status: raw.dial_status as DialStatus } : {}),
    ...(raw.dial_started_at ? { dial_started_at: raw.dial_started_at } : {}),
    ...(raw.metadata ? { metadata: JSON.parse(raw.metadata) as Record<string, unknown> } : {}),
    ...optionalNumber('answered_at', raw.answered_at),
    ...optionalNumber('ended_at', raw.ended_at),
    ...(isHangupCause(raw.hangup_cause) ? { hangup_cause: raw.hangup_cause } : {}),
    ...optionalNumber('duration_seconds', raw.duration_seconds),
    recording_ids: raw.recording_ids ? raw.recording_ids.split(',') : [],
    ...(raw.stream ? { stream: raw.stream } : {}),
  };
}

const optionalNumber = <K extends string>(key: K, value: string | undefined) =>
  (value === undefined || value === '' ? {} : { [key]: Number(value) }) as Partial<
    Record<K, number>
  >;

const isHangupCause = (value: string | undefined): value is HangupCause =>
  (HANGUP_CAUSES as readonly (string | undefined)[]).includes(value);
