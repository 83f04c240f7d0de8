import { recordHangup } from '../sessions/hangup.js';
import { parseSession } from '../sessions/record.js';
import type { ClusterContext } from './context.js';
import { endOrphanBridge } from './orphan-bridge.js';
import { endOrphanStream } from './orphan-stream.js';

/**
 * Gives a session that no live process holds (its node died, or its channel vanished while its
 * node was away) its one synthetic call.hangup (failed, duration 0), from what Redis knows of
 * it, after the stream.stopped of a media stream it still names and the call.unbridged of a
 * bridge it is still in; `owner` is the prefix of the node it belonged to. True when this call published it; false when it had ended already
 * (endSession-6.lua).
 */
export async function endOrphan(ctx: ClusterContext, id: string, owner: string): Promise<boolean> {
  const raw = await ctx.redis.hgetall(ctx.keys.session(id));
  const session = raw.app_id ? parseSession(raw) : undefined;
  if (session?.conf_room) await ctx.redis.zrem(ctx.keys.roomMembers(session.conf_room), id);
  if (session) await endOrphanStream(ctx, id, raw, session.app_id, session.metadata);
  if (session) await endOrphanBridge(ctx, id, raw, session.app_id, session.metadata);
  const published = await recordHangup(ctx, {
    sessionId: id,
    owner,
    appId: session?.app_id ?? '',
    direction: session?.direction ?? 'inbound',
    metadata: session?.metadata,
    cause: 'failed',
    durationSeconds: 0,
    reason: 'orphaned',
    parentSessionUuid: session?.parent_session_uuid,
  });
  if (published) ctx.log.info({ session_uuid: id }, 'orphaned session: synthetic call.hangup');
  return published;
}
