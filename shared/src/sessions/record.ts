import type { ChainableCommander, Redis } from 'ioredis';
import { HANGUP_CAUSES, type HangupCause } from '../events/payloads.js';
import type { RedisKeys } from '../redis/keys.js';

/** Membership of a session in a conference room, as the api and the media node see it. */
export type ConferenceState = 'none' | 'joining' | 'joined' | 'leaving';
export type DialStatus = 'dialing' | 'ringing' | 'early_media' | 'answered' | 'ended';
/**
 * Where a session stands in a bridge (docs/decisions/connecting-calls.md): accepted and not yet
 * confirmed by FreeSWITCH, connected, an unbridge accepted, or a transfer's caller or new leg
 * while the leg rings. A session in no bridge has no state (`bridge_state` absent).
 */
export const BRIDGE_STATES = ['bridging', 'bridged', 'unbridging', 'transferring'] as const;
export type BridgeState = (typeof BRIDGE_STATES)[number];

/**
 * A session's bridge: the three fields exist together or not at all (sessionCommand.lua sets
 * them on both parties at once; the media node's bridgeEnded clears them at once).
 */
export interface SessionBridge {
  readonly bridge_state: BridgeState;
  /** The other session: during a transfer, the caller's names the leg and the leg's the caller. */
  readonly bridge_peer: string;
  /** The command_uid of the bridge or transfer that made the bridge. */
  readonly bridge_uid: string;
}

/**
 * A session hash in Redis. Field names are a contract shared with the Lua scripts
 * (`sessionCommand.lua` reads `app_id`, `conf_*`, `ended_at`, `stream`, `bridge_*`), so they are
 * listed here once.
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
  /** Its bridge, absent when it is in none. */
  readonly bridge?: SessionBridge;
  /** A transfer's new leg: the session that transferred (set when the api creates the leg). */
  readonly parent_session_uuid?: string;
}

export type NewSession = Pick<
  SessionRecord,
  'app_id' | 'node' | 'direction' | 'caller_id' | 'did'
> &
  Partial<
    Pick<
      SessionRecord,
      | 'dial_status'
      | 'dial_started_at'
      | 'metadata'
      | 'created_at'
      | 'answered_at'
      | 'parent_session_uuid'
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
  if (session.parent_session_uuid) fields.parent_session_uuid = session.parent_session_uuid;
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
    ...parseBridge(raw),
    ...(raw.parent_session_uuid ? { parent_session_uuid: raw.parent_session_uuid } : {}),
  };
}

/** The hash's bridge fields as one value, or none unless all three are there and well formed. */
function parseBridge(raw: Record<string, string>): { bridge?: SessionBridge } {
  const { bridge_state, bridge_peer, bridge_uid } = raw;
  if (!isBridgeState(bridge_state) || !bridge_peer || bridge_uid === undefined) return {};
  return { bridge: { bridge_state, bridge_peer, bridge_uid } };
}

const optionalNumber = <K extends string>(key: K, value: string | undefined) =>
  (value === undefined || value === '' ? {} : { [key]: Number(value) }) as Partial<
    Record<K, number>
  >;

const isBridgeState = (value: string | undefined): value is BridgeState =>
  (BRIDGE_STATES as readonly (string | undefined)[]).includes(value);

const isHangupCause = (value: string | undefined): value is HangupCause =>
  (HANGUP_CAUSES as readonly (string | undefined)[]).includes(value);
