import { DEFERRED_TIMEOUT_MS } from '@voicegw/shared';
import { recordMembership } from '../conference/membership.js';
import { memberOf } from './conference-member.js';
import { confirmation, describe, type CommandContext, type SessionCommand } from './types.js';

/**
 * The api already flipped conf_muted; FreeSWITCH's mute-member / unmute-member confirms it
 * (conference.member.muted / unmuted). A refused or unconfirmed change is flipped back. For a
 * member in a room hosted by another node, the command goes to that node's stream and its
 * FreeSWITCH's confirmation comes back relayed.
 */
async function setMuted(
  ctx: CommandContext<'conference/mute' | 'conference/unmute'>,
  muted: boolean,
): Promise<{ confirmed: Promise<void> } | undefined> {
  const { session } = ctx;
  const member = await memberOf(session);
  if (!member) {
    await ctx.result(false, 'Not in a conference');
    return undefined;
  }
  const { membership, roomId, memberId } = member;
  const action = muted ? 'mute' : 'unmute';
  const restore = muted ? 'unmuted' : 'muted';
  const { confirmed, settle } = confirmation();
  membership.next(`${action}-member`, DEFERRED_TIMEOUT_MS, (event) => {
    if (event) return settle();
    settle(
      session.serial(async () => {
        await recordMembership(session, roomId, restore);
        await ctx.result(false, `${action} not confirmed within 2000 ms`);
      }),
    );
  });
  try {
    // A member in a room on another node: that node's FreeSWITCH has the room.
    if (membership.bridge) await membership.bridge.forward(action, memberId);
    else {
      const reply = await session.channel.api(`conference ${roomId} ${action} ${memberId}`);
      if (!reply.startsWith('+OK')) throw new Error(reply.trim());
    }
  } catch (err) {
    await recordMembership(session, roomId, restore);
    await ctx.result(false, describe(err));
  }
  return { confirmed };
}

export const conferenceMute: SessionCommand<'conference/mute'> = {
  name: 'conference/mute',
  esl: 'api conference <room_id> mute <member_id> (on the host node for a bridged member)',
  confirmedBy: 'CUSTOM conference::maintenance Action=mute-member',
  start: (ctx) => setMuted(ctx, true),
};

export const conferenceUnmute: SessionCommand<'conference/unmute'> = {
  name: 'conference/unmute',
  esl: 'api conference <room_id> unmute <member_id> (on the host node for a bridged member)',
  confirmedBy: 'CUSTOM conference::maintenance Action=unmute-member',
  start: (ctx) => setMuted(ctx, false),
};
