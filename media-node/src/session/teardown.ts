import { parseSessionId, recordHangup, type HangupCause, type HangupRecord } from '@voicegw/shared';
import { recordMembership } from '../conference/membership.js';
import type { NodeContext } from '../context.js';
import type { Session } from './session.js';

/** Counts one published call.hangup; `synthetic` for a sweeper's. */
export function countHangup(node: NodeContext, cause: HangupCause, synthetic: boolean): void {
  node.metrics.hangups.inc({ cause, synthetic: String(synthetic) });
}

/**
 * Ends a session this node owns: its media stream's stream.stopped, its bridge's call.unbridged,
 * then call.hangup (once); the session leaves the registry and its channel object is finished. The script waits through a
 * Redis outage (the node's scripts retry until Redis is back, up to the shutdown deadline), since
 * a lost call.hangup would leave the app waiting for a call that is over. `orphaned`: the
 * channel vanished (FreeSWITCH restarted), the hangup is synthetic.
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
  // Its media stream ends before call.hangup (CHANNEL_HANGUP, queued earlier, has normally ended
  // it already: this covers a channel that vanished).
  await node.streams.sessionEnded(session).catch((err: unknown) => {
    session.log.error({ err }, 'media stream not ended');
  });
  const membership = session.conference;
  // Normally its CHANNEL_HANGUP ended its bridge already; this covers a channel that vanished.
  const bridge = session.bridge;
  await bridge?.end(true).catch((err: unknown) => {
    session.log.error({ err }, 'call.unbridged not published');
  });
  session.channel.finish();
  if (membership) {
    // Normally del-member came first; if it was lost, the room must still forget the member.
    membership.close();
    await recordMembership(session, membership.roomId, 'left').catch(() => undefined);
  }
  const published = await recordHangup(node, {
    sessionId: session.id,
    owner: parseSessionId(session.id)?.prefix ?? node.prefix,
    appId: session.appId,
    direction: session.direction,
    metadata: session.metadata,
    cause,
    durationSeconds,
    reason,
    parentSessionUuid: session.parentSessionId,
  });
  if (published) countHangup(node, cause, reason === 'orphaned');
  // Its SIP leg goes once Redis says it ended: the peer's node then reads peer_hangup.
  bridge?.dropLeg();
  session.markEnded(cause);
  session.log.info({ cause, durationSeconds }, 'session ended');
}
