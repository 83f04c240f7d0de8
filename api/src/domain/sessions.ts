import {
  isSessionId,
  parseSession,
  type SessionDirection,
  type SessionIndexState,
  type SessionRecord,
} from '@voicegw/shared';
import { GatewayError } from '../errors/catalogue.js';
import type { FastifyInstance } from 'fastify';
import type { Session, SessionList, SessionListQuery, SessionStatus } from './session-schemas.js';
import { decodeCursor, encodeCursor, newestPageOf } from './cursor.js';

// The sessions an app can read: live ones, and ended ones while their hash is kept
// (SESSION_GRACE_SEC). The app's index (sorted sets by state and direction, written by the
// media node and the dial script) gives a page in one round trip, the hashes a second.

const DIRECTIONS: readonly SessionDirection[] = ['inbound', 'outbound'];
const STATES: Record<'active' | 'ended', SessionIndexState> = { active: 'live', ended: 'ended' };

export type ListArgs = Omit<SessionListQuery, 'limit'> & { readonly limit: number };

export async function listSessions(
  app: FastifyInstance,
  appId: string,
  args: ListArgs,
): Promise<SessionList> {
  const before = args.cursor === undefined ? undefined : decodeCursor(args.cursor, isSessionId);
  const states = args.status ? [STATES[args.status]] : (['live', 'ended'] as const);
  const directions = args.direction ? [args.direction] : DIRECTIONS;
  const indexes = states.flatMap((state) =>
    directions.map((direction) => app.keys.appSessions(appId, state, direction)),
  );
  const page = await newestPageOf(app.redis, indexes, args.limit, before);
  const pipeline = app.redis.pipeline();
  for (const item of page.items) pipeline.hgetall(app.keys.session(item.id));
  const hashes = page.items.length > 0 ? ((await pipeline.exec()) ?? []) : [];
  const sessions = page.items.flatMap((item, i) => {
    const [error, raw] = hashes[i] ?? [null, {}];
    if (error) throw error;
    const hash = raw as Record<string, string>;
    // An index entry can outlive its hash by a moment (expiry is pruned on the next hangup).
    if (hash.app_id !== appId) return [];
    const session = parseSession(hash);
    // One that ended between the two reads is no longer what `status=active` asks for.
    if (args.status === 'active' && session.ended_at !== undefined) return [];
    return [toSession(item.id, session)];
  });
  return { sessions, next_cursor: page.next ? encodeCursor(page.next) : null };
}

/** One of the app's sessions; 404 unknown or expired, 403 another app's (as commands answer). */
export async function getSession(
  app: FastifyInstance,
  appId: string,
  id: string,
): Promise<Session> {
  const session = isSessionId(id) ? await app.sessions.get(id) : undefined;
  if (!session) throw new GatewayError('SESSION_NOT_FOUND');
  if (session.app_id !== appId) throw new GatewayError('SESSION_FORBIDDEN');
  return toSession(id, session);
}

const iso = (ms: number | undefined): string | null =>
  ms === undefined ? null : new Date(ms).toISOString();

function statusOf(session: SessionRecord): SessionStatus {
  if (session.ended_at !== undefined) return 'ended';
  if (session.direction === 'outbound') {
    if (session.dial_status === 'early_media' || session.dial_status === 'answered')
      return session.dial_status;
    return session.answered_at === undefined ? 'ringing' : 'answered';
  }
  return session.answered_at === undefined ? 'ringing' : 'answered';
}

export function toSession(id: string, session: SessionRecord): Session {
  const common = {
    session_uuid: id,
    caller_id: session.caller_id,
    status: statusOf(session),
    created_at: new Date(session.created_at).toISOString(),
    answered_at: iso(session.answered_at),
    ended_at: iso(session.ended_at),
    hangup_cause: session.hangup_cause ?? null,
    duration_seconds: session.duration_seconds ?? null,
    room_id: session.conf_room || null,
    recording_ids: [...session.recording_ids],
    bridge: session.bridge
      ? { peer_session_uuid: session.bridge.bridge_peer, state: session.bridge.bridge_state }
      : null,
    parent_session_uuid: session.parent_session_uuid ?? null,
  };
  if (session.direction === 'inbound') {
    return { ...common, direction: 'inbound', did: session.did };
  }
  return {
    ...common,
    direction: 'outbound',
    to: session.did,
    from: session.caller_id,
    metadata: session.metadata ?? {},
  };
}
