import { parseSession } from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import { recordHangup } from '../session/teardown.js';

/**
 * Gives a session that no live process holds (its node died, or its channel vanished while its
 * node was away) its one synthetic call.hangup (failed, duration 0), from what Redis knows of
 * it. True when this call published it; false when it had ended already (endSession-6.lua).
 */
export async function endOrphan(node: NodeContext, id: string): Promise<boolean> {
  const raw = await node.redis.hgetall(node.keys.session(id));
  const session = raw.app_id ? parseSession(raw) : undefined;
  if (session?.conf_room) await node.redis.zrem(node.keys.roomMembers(session.conf_room), id);
  const published = await recordHangup(node, {
    sessionId: id,
    appId: session?.app_id ?? '',
    direction: session?.direction ?? 'inbound',
    metadata: session?.metadata,
    cause: 'failed',
    durationSeconds: 0,
    reason: 'orphaned',
  });
  if (published) node.log.info({ session_uuid: id }, 'orphaned session: synthetic call.hangup');
  return published;
}
