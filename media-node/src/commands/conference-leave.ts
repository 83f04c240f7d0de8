import { DEFERRED_TIMEOUT_MS } from '@voicegw/shared';
import { describe, type SessionCommand } from './types.js';
import { memberOf } from './conference-member.js';
import { recordMembership } from '../conference/membership.js';
import { confirmation } from './types.js';

/**
 * conference/leave: the api marked the session `leaving`. The member is kicked from the room
 * (the call goes back to park); del-member confirms it (conference.member.left, session back to
 * "not in a conference"). A member in a room on another node leaves by hanging up its bridge
 * leg: the call parks (park_after_bridge) and the host's FreeSWITCH drops the member. A refused
 * or unconfirmed leave restores `joined`. A playback playing to the member stops first: it runs
 * inside the member's conference and would hold the kick back.
 */
export const conferenceLeave: SessionCommand<'conference/leave'> = {
  name: 'conference/leave',
  esl: 'api conference <room_id> kick <member_id>; another node: api uuid_kill <bridge leg>',
  confirmedBy:
    'CUSTOM conference::maintenance Action=del-member for the channel; the bridge leg hanging up',
  async start(ctx) {
    const { session } = ctx;
    const member = await memberOf(session);
    if (!member) {
      await ctx.result(false, 'Not in a conference');
      return;
    }
    const { membership, roomId, memberId } = member;
    await session.playback?.stop();
    const { confirmed, settle } = confirmation();
    membership.next('del-member', DEFERRED_TIMEOUT_MS, (event) => {
      if (event) return settle();
      settle(
        session.serial(async () => {
          await recordMembership(session, roomId, 'restore_joined');
          await ctx.result(false, 'leave not confirmed within 2000 ms');
        }),
      );
    });
    try {
      if (membership.bridge) {
        if ((await membership.bridge.hangup()) === 'gone')
          throw new Error('bridge leg already gone');
      } else {
        const reply = await session.channel.api(`conference ${roomId} kick ${memberId}`);
        if (!reply.startsWith('+OK')) throw new Error(reply.trim());
      }
    } catch (err) {
      await recordMembership(session, roomId, 'restore_joined');
      await ctx.result(false, describe(err));
    }
    return { confirmed };
  },
};
