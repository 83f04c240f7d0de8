import { parseRoomId } from '@voicegw/shared';
import { BridgeLeg } from '../conference/bridge-leg.js';
import { Membership } from '../conference/membership.js';
import type { Session } from '../session/session.js';

export interface Member {
  readonly membership: Membership;
  readonly roomId: string;
  readonly memberId: string;
}

/**
 * The session's confirmed membership. After a restart of this node the membership object is
 * gone but Redis still knows the room and member id: it is rebuilt from there, and for a room
 * hosted by another node, so is its bridge leg (FreeSWITCH's `bridge_to` of the call).
 */
export async function memberOf(session: Session): Promise<Member | undefined> {
  const member = await known(session);
  if (member && !member.membership.bridge) await findBridge(session, member.membership);
  return member;
}

async function known(session: Session): Promise<Member | undefined> {
  const current = session.conference;
  if (current?.memberId) {
    return { membership: current, roomId: current.roomId, memberId: current.memberId };
  }
  const [roomId, memberId] = await session.node.redis.hmget(
    session.node.keys.session(session.id),
    'conf_room',
    'conf_member_id',
  );
  if (!roomId || !memberId) return undefined;
  const membership = current?.roomId === roomId ? current : new Membership(session, roomId);
  membership.memberId = memberId;
  session.conference = membership;
  return { membership, roomId, memberId };
}

async function findBridge(session: Session, membership: Membership): Promise<void> {
  const host = parseRoomId(membership.roomId)?.prefix;
  if (!host || host === session.node.prefix) return;
  const { channel } = session;
  const leg = (await channel.api(`uuid_getvar ${channel.uuid} bridge_to`)).trim();
  if (!leg || leg === '_undef_' || leg.startsWith('-ERR')) return;
  membership.bridge = BridgeLeg.adopt(membership, host, leg);
}
