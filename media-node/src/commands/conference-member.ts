import { Membership } from '../conference/membership.js';
import type { Session } from '../session/session.js';

export interface Member {
  readonly membership: Membership;
  readonly roomId: string;
  readonly memberId: string;
}

/**
 * The session's confirmed membership. After a restart of this node the membership object is
 * gone but Redis still knows the room and member id: it is rebuilt from there.
 */
export async function memberOf(session: Session): Promise<Member | undefined> {
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
