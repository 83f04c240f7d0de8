import type { ClusterContext } from '../cluster/context.js';
import { eventArgs } from '../events/publisher.js';
import type { EventPayload, HangupCause } from '../events/payloads.js';
import type { SessionDirection } from '../redis/keys.js';

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
  };
  const published = await ctx.scripts.run(
    'endSession',
    [
      keys.session(record.sessionId),
      keys.nodeSessions(record.owner),
      keys.events(),
      keys.appSessions(record.appId, 'live', record.direction),
      keys.appSessions(record.appId, 'ended', record.direction),
      keys.appSessionsExpiry(record.appId, record.direction),
    ],
    [
      record.sessionId,
      ...eventArgs(record.appId, payload, record.metadata),
      Date.now(),
      record.reason,
      ctx.sessionGraceMs,
      record.reason === 'orphaned' ? '1' : '0',
      payload.hangup_cause,
      payload.duration_seconds,
    ],
  );
  return Number(published) === 1;
}
