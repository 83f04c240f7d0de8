import type { Redis } from 'ioredis';
import type { RedisKeys } from '../redis/keys.js';

/** Membership of a session in a conference room, as the api and the media node see it. */
export type ConferenceState = 'none' | 'joining' | 'joined' | 'leaving';
export type DialStatus = 'dialing' | 'ringing' | 'early_media' | 'answered' | 'ended';

/**
 * A session hash in Redis. Field names are a contract shared with the Lua scripts
 * (`session_command.lua` reads `app_id`, `node`, `conf_*`), so they are listed here once.
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
}

export type NewSession = Pick<
  SessionRecord,
  'app_id' | 'node' | 'direction' | 'caller_id' | 'did'
> &
  Partial<Pick<SessionRecord, 'dial_status' | 'dial_started_at' | 'metadata' | 'created_at'>>;

export class SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  async create(sessionId: string, session: NewSession): Promise<void> {
    await this.redis.hset(this.keys.session(sessionId), sessionFields(session));
  }

  async get(sessionId: string): Promise<SessionRecord | undefined> {
    const raw = await this.redis.hgetall(this.keys.session(sessionId));
    return raw.app_id === undefined ? undefined : parseSession(raw);
  }
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
  };
}
