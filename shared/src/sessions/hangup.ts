import type { ClusterContext } from '../cluster/context.js';
import { eventArgs } from '../events/publisher.js';
import type { EventPayload, HangupCause } from '../events/payloads.js';
import type { SessionDirection } from '../redis/keys.js';
import { SCRIPT_BUILDERS as lua } from '../redis/lua/index.js';

export interface HangupRecord {
  readonly sessionId: string;
  /** The prefix of the node that owns the session (whose live-session set it leaves). */
  readonly owner: string;
  readonly appId: string;
  readonly direction: SessionDirection;
  readonly metadata: Record<string, unknown> | undefined;
  readonly cause: HangupCause;
  readonly durationSeconds: number;
  /** `orphaned` for the sweeper's synthetic hangups. */
  readonly reason: 'hangup' | 'orphaned';
  /** A transfer's new leg: the session that transferred, which its call.hangup names. */
  readonly parentSessionUuid?: string | undefined;
}

/**
 * Publishes a session's call.hangup and marks it ended in one atomic step (endSession-6.lua):
 * true when this call published it, false when the session had already ended elsewhere.
 */
export async function recordHangup(
  ctx: Pick<ClusterContext, 'keys' | 'scripts' | 'sessionGraceMs'>,
  record: HangupRecord,
): Promise<boolean> {
  const { keys } = ctx;
  const payload: EventPayload<'call.hangup'> = {
    event: 'call.hangup',
    session_uuid: record.sessionId,
    hangup_cause: record.cause,
    duration_seconds: Math.max(0, Math.floor(record.durationSeconds)),
    ...(record.parentSessionUuid ? { parent_session_uuid: record.parentSessionUuid } : {}),
  };
  const published = await ctx.scripts.run(
    lua.endSession(
      {
        session: keys.session(record.sessionId),
        nodeSessions: keys.nodeSessions(record.owner),
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
        graceMs: ctx.sessionGraceMs,
        onlyIfExists: record.reason === 'orphaned' ? '1' : '0',
        hangupCause: payload.hangup_cause,
        durationSeconds: payload.duration_seconds,
      },
    ),
  );
  return Number(published) === 1;
}
