import type { MemberCommandMessage } from '@voicegw/shared';
import type { NodeWithSessions } from '../session/registry.js';
import { maintenanceEvent } from './membership.js';

/**
 * A member command between nodes (cross-node conferences): mute/unmute for the room's host,
 * carried out by its BridgeHost; `event` for the session's node, applied to the session's
 * membership as if its own FreeSWITCH had reported it. Applied synchronously, so relays of one
 * member keep the order in which the host appended them to the stream.
 */
export async function executeMemberCommand(
  node: NodeWithSessions,
  message: MemberCommandMessage,
): Promise<void> {
  if (message.command !== 'event') return node.rooms.bridges.execute(message);
  const membership = node.sessions.get(message.session_id)?.conference;
  // A relay about an earlier leg (a join given up on, a room left) is not about this membership.
  if (!membership?.bridge || membership.bridge.uuid !== message.leg) return;
  membership.apply(
    maintenanceEvent(message.room_id, message.action ?? '', message.member_id, message.speak),
  );
}
