import { describe, type SessionCommand } from './types.js';
import { memberOf } from './conference-member.js';
import { recordMembership } from '../conference/membership.js';
import { DEFERRED_TIMEOUT_MS } from './types.js';

/**
 * conference/leave: the api marked the session `leaving`. The member is kicked from the room
 * (the call goes back to park); del-member confirms it (conference.member.left, session back to
 * "not in a conference"). A refused or unconfirmed kick restores `joined`.
 */
export const conferenceLeave: SessionCommand<'conference/leave'> = {
  name: 'conference/leave',
  esl: 'api conference <room_id> kick <member_id>',
  confirmedBy: 'CUSTOM conference::maintenance Action=del-member for the channel',
  async start(ctx) {
    const { session } = ctx;
    const member = await memberOf(session);
    if (!member) {
      await ctx.result(false, 'Not in a conference');
      return;
    }
    const { membership, roomId, memberId } = member;
    let settle!: () => void;
    const confirmed = new Promise<void>((resolve) => (settle = resolve));
    membership.next('del-member', DEFERRED_TIMEOUT_MS, (event) => {
      if (event) return settle();
      void session
        .serial(async () => {
          await recordMembership(session, roomId, 'restore_joined');
          await ctx.result(false, 'leave not confirmed within 2000 ms');
        })
        .finally(settle);
    });
    try {
      const reply = await session.channel.api(`conference ${roomId} kick ${memberId}`);
      if (!reply.startsWith('+OK')) throw new Error(reply.trim());
    } catch (err) {
      await recordMembership(session, roomId, 'restore_joined');
      await ctx.result(false, describe(err));
    }
    return { confirmed };
  },
};
