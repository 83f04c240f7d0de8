import {
  eventArgs,
  lua,
  parseSessionId,
  type EventPayload,
  type HangupCause,
  type SessionDirection,
} from '@voicegw/shared';
import { recordMembership } from '../conference/membership.js';
import type { NodeContext } from '../context.js';
import type { Session } from './session.js';

export interface HangupRecord {
  readonly sessionId: string;
  readonly appId: string;
  readonly direction: SessionDirection;
  readonly metadata: Record<string, unknown> | undefined;
  readonly cause: HangupCause;
  readonly durationSeconds: number;
  /** `orphaned` for the sweeper's synthetic hangups. */
  readonly reason: 'hangup' | 'orphaned';
}

/**
 * Publishes a session's call.hangup and marks it ended in one atomic step (endSession-6.lua):
 * true when this call published it, false when the session had already ended elsewhere.
 */
export async function recordHangup(node: NodeContext, record: HangupRecord): Promise<boolean> {
  const { keys } = node;
  const payload: EventPayload<'call.hangup'> = {
    event: 'call.hangup',
    session_uuid: record.sessionId,
    hangup_cause: record.cause,
    duration_seconds: Math.max(0, Math.floor(record.durationSeconds)),
  };
  const owner = parseSessionId(record.sessionId)?.prefix ?? node.prefix;
  const published = await node.scripts.run(
    lua.endSession(
      {
        session: keys.session(record.sessionId),
        nodeSessions: keys.nodeSessions(owner),
        events: keys.events(),
        liveSessions: keys.appSessions(record.appId, 'live', record.direction),
        endedSessions: keys.appSessions(record.appId, 'ended', record.direction),
        endedExpiry: keys.appSessionsExpiry(record.appId, record.direction),
      },
      {
        sessionId: record.sessionId,
        event: eventArgs(record.appId, payload, record.metadata),
        endedAt: Date.now(),
        reason: record.reason,
        graceMs: node.config.SESSION_GRACE_SEC * 1000,
        onlyIfExists: record.reason === 'orphaned' ? '1' : '0',
        hangupCause: payload.hangup_cause,
        durationSeconds: payload.duration_seconds,
      },
    ),
  );
  const done = Number(published) === 1;
  if (done) {
    node.metrics.hangups.inc({
      cause: record.cause,
      synthetic: String(record.reason === 'orphaned'),
    });
  }
  return done;
}

/**
 * Ends a session this node owns: call.hangup (once), then the session leaves the registry and
 * its channel object is finished. The script waits through a Redis outage (the node's scripts
 * retry until Redis is back, up to the shutdown deadline), since a lost call.hangup would leave
 * the app waiting for a call that is over. `orphaned`: the channel
 * vanished (FreeSWITCH restarted), the hangup is synthetic.
 */
export async function endSession(
  session: Session,
  cause: HangupCause,
  durationSeconds: number,
  reason: HangupRecord['reason'] = 'hangup',
): Promise<void> {
  if (session.ended) return;
  session.ended = true;
  const { node } = session;
  node.sessions.remove(session);
  const membership = session.conference;
  session.channel.finish();
  if (membership) {
    // Normally del-member came first; if it was lost, the room must still forget the member.
    membership.close();
    await recordMembership(session, membership.roomId, 'left').catch(() => undefined);
  }
  await recordHangup(node, {
    sessionId: session.id,
    appId: session.appId,
    direction: session.direction,
    metadata: session.metadata,
    cause,
    durationSeconds,
    reason,
  });
  session.log.info({ cause, durationSeconds }, 'session ended');
}
