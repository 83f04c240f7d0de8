import { randomUUID } from 'node:crypto';
import { parseRoomId } from '@voicegw/shared';
import { Membership, recordMembership } from '../conference/membership.js';
import {
  DEFERRED_TIMEOUT_MS,
  describe,
  type CommandContext,
  type SessionCommand,
} from './types.js';

/** Conference profile of every room (mod_conference's `default`). */
const PROFILE = 'default';

/**
 * conference/join: the api already marked the session `joining` (muted) and listed it in the
 * room. The member joins muted; add-member confirms it (conference.member.joined, `joined` with
 * its member id). A join FreeSWITCH refuses, or that is not confirmed in time, is undone in Redis
 * and reported as command.result false (the contract has no other failure event).
 */
export const conferenceJoin: SessionCommand<'conference/join'> = {
  name: 'conference/join',
  esl: 'sendmsg execute conference <room_id>@default+flags{mute}',
  confirmedBy: 'CUSTOM conference::maintenance Action=add-member for the channel (Member-ID)',
  async start(ctx) {
    const { session, message } = ctx;
    const roomId = message.args.room_id;
    if (parseRoomId(roomId)?.prefix !== session.node.prefix) {
      // The room is hosted by another media node: joining through a bridge leg is not built yet.
      return undo(ctx, roomId, 'Room is hosted by another media node');
    }
    session.conference?.close();
    // A playback holding the channel (event-lock) would keep the conference waiting behind it.
    await session.playback?.stop();
    const applicationUuid = randomUUID();
    const membership = new Membership(session, roomId, applicationUuid);
    session.conference = membership;
    let settle!: () => void;
    const confirmed = new Promise<void>((resolve) => (settle = resolve));
    membership.next('add-member', DEFERRED_TIMEOUT_MS, (event) => {
      if (event) return settle();
      membership.close();
      void session
        .serial(() => undo(ctx, roomId, 'join not confirmed within 2000 ms'))
        .finally(settle);
    });
    try {
      await session.channel.execute(
        'conference',
        `${roomId}@${PROFILE}+flags{mute}`,
        applicationUuid,
      );
    } catch (err) {
      membership.close();
      await undo(ctx, roomId, describe(err));
      settle();
    }
    return { confirmed };
  },
};

/** Undoes the api's `joining` and reports the failure (runs inside the session's queue). */
async function undo(
  ctx: CommandContext<'conference/join'>,
  roomId: string,
  error: string,
): Promise<void> {
  const { session } = ctx;
  session.log.warn({ room_id: roomId, error }, 'conference join failed');
  await recordMembership(session, roomId, 'join_failed');
  await ctx.result(false, error);
}
