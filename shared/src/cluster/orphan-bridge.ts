import { clearRefusedBridge, recordUnbridge } from '../sessions/unbridge.js';
import type { ClusterContext } from './context.js';

/**
 * The bridge an orphaned session is still in: its node died without a word, and the party's one
 * call.unbridged (reason hangup: the sweeper hangs it up) must precede its call.hangup; duration
 * 0, what the node measured died with it. Published only while its fields name that peer
 * (bridgeEnded-3.lua), so a node that did end it adds nothing. A bridge never confirmed (a bridge
 * or transfer in progress) is cleared on both sides without an event. The peer, on a live node,
 * stays up: that node sees the session ended and separates its call (media-node bridge/watch).
 */
export async function endOrphanBridge(
  ctx: Pick<ClusterContext, 'keys' | 'scripts'>,
  sessionId: string,
  raw: Record<string, string>,
  appId: string,
  metadata: Record<string, unknown> | undefined,
): Promise<void> {
  const peerId = raw.bridge_peer;
  if (!peerId || raw.ended_at) return;
  if (raw.bridge_state !== 'bridged' && raw.bridge_state !== 'unbridging') {
    await clearRefusedBridge(ctx, sessionId, peerId);
    return;
  }
  await recordUnbridge(ctx, {
    sessionId,
    peerId,
    appId,
    metadata,
    durationMs: 0,
    selfEnded: true,
    peerGone: false,
  });
}
