import type { ClusterContext } from '../cluster/context.js';
import { eventArgs } from '../events/publisher.js';
import type { EventPayload, UnbridgeReason } from '../events/payloads.js';
import { SCRIPT_BUILDERS as lua } from '../redis/lua/index.js';

export interface UnbridgeRecord {
  /** The party that left the bridge. */
  readonly sessionId: string;
  /** The other party its fields name. */
  readonly peerId: string;
  readonly appId: string;
  readonly metadata: Record<string, unknown> | undefined;
  /** How long the two were connected, as the party's node measured it (0: unknown). */
  readonly durationMs: number;
  /** The party itself hung up (its node's teardown, or the sweeper's for a node that died). */
  readonly selfEnded: boolean;
  /** Its node saw the peer's channel hang up (both on one FreeSWITCH). */
  readonly peerGone: boolean;
}

/**
 * A party's one call.unbridged, with its bridge fields cleared, in one step (bridgeEnded-3.lua),
 * the reason decided there from the state found: the reason published, `cleared` for a bridge
 * that was never confirmed (no event), undefined when its fields named no bridge with that peer
 * (a node or the sweeper got there first).
 */
export async function recordUnbridge(
  ctx: Pick<ClusterContext, 'keys' | 'scripts'>,
  record: UnbridgeRecord,
): Promise<UnbridgeReason | 'cleared' | undefined> {
  const { keys } = ctx;
  const args = (reason: UnbridgeReason) => {
    const payload: EventPayload<'call.unbridged'> = {
      event: 'call.unbridged',
      session_uuid: record.sessionId,
      peer_session_uuid: record.peerId,
      reason,
      duration_ms: Math.max(0, Math.round(record.durationMs)),
    };
    return eventArgs(record.appId, payload, record.metadata);
  };
  const reply = await ctx.scripts.run(
    lua.bridgeEnded(
      {
        session: keys.session(record.sessionId),
        peerSession: keys.session(record.peerId),
        events: keys.events(),
      },
      {
        peer: record.peerId,
        selfEnded: record.selfEnded ? '1' : '0',
        peerGone: record.peerGone ? '1' : '0',
        unbridged: args('unbridged'),
        hangup: args('hangup'),
        peerHangup: args('peer_hangup'),
        error: args('error'),
      },
    ),
  );
  return typeof reply === 'string' ? (reply as UnbridgeReason | 'cleared') : undefined;
}

/**
 * Clears both sides of a bridge or transfer that never connected (bridgeRefused-2.lua), each
 * only while it names the other unconfirmed: no event, the command's result says it.
 */
export async function clearRefusedBridge(
  ctx: Pick<ClusterContext, 'keys' | 'scripts'>,
  sessionId: string,
  peerId: string,
): Promise<void> {
  await ctx.scripts.run(
    lua.bridgeRefused(
      { session: ctx.keys.session(sessionId), peerSession: ctx.keys.session(peerId) },
      { sessionId, peer: peerId },
    ),
  );
}
