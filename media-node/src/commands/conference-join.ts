import { randomUUID } from 'node:crypto';
import { DEFERRED_TIMEOUT_MS, parseRoomId } from '@voicegw/shared';
import { BridgeError, BridgeLeg } from '../conference/bridge-leg.js';
import { Membership, recordMembership } from '../conference/membership.js';
import { confirmation, describe, type CommandContext, type SessionCommand } from './types.js';

/** Conference profile of every room (mod_conference's `default`). */
const PROFILE = 'default';

/**
 * conference/join: the api already marked the session `joining` (muted) and listed it in the
 * room. The member joins muted; add-member confirms it (conference.member.joined, `joined` with
 * its member id). A join FreeSWITCH refuses, or that is not confirmed in time, is undone in Redis
 * and reported as command.result false (the contract has no other failure event).
 *
 * A room hosted here: `conference` runs on the call without event-lock, so that a later
 * playback runs on top of it, to the member. A room hosted by another node: a bridge leg to the
 * host's FreeSWITCH (BridgeLeg), whose member the host relays.
 */
export const conferenceJoin: SessionCommand<'conference/join'> = {
  name: 'conference/join',
  esl: 'sendmsg execute conference <room_id>@default+flags{mute} (no event-lock); another node: bgapi originate <CONFERENCE_BRIDGE_TEMPLATE> &park(), uuid_bridge',
  confirmedBy:
    'CUSTOM conference::maintenance Action=add-member for the channel (Member-ID), or relayed by the host node for the bridge leg',
  async start(ctx) {
    const { session, message } = ctx;
    const roomId = message.args.room_id;
    const host = parseRoomId(roomId)?.prefix;
    if (!host) return undo(ctx, roomId, 'Invalid room id');
    const deadline = Date.now() + DEFERRED_TIMEOUT_MS;
    session.conference?.close();
    // A playback holding the channel (event-lock) would keep the conference waiting behind it.
    await session.playback?.stop();
    const local = host === session.node.prefix;
    const applicationUuid = local ? randomUUID() : undefined;
    const membership = new Membership(session, roomId, applicationUuid);
    session.conference = membership;
    // The conference is the call's audio now: a bidirectional stream's playback stops.
    session.node.streams.yieldAudio(session, membership.ended);
    const { confirmed, settle } = confirmation();
    membership.next('add-member', deadline - Date.now(), (event) => {
      if (event) return settle();
      const error = membership.failure ?? 'join not confirmed within 2000 ms';
      membership.close();
      settle(session.serial(() => undo(ctx, roomId, error)));
    });
    if (!applicationUuid) {
      const bridge = new BridgeLeg(membership, host);
      membership.bridge = bridge;
      membership.hold();
      bridge.connect(deadline).then(
        () => membership.release(),
        (err: unknown) => membership.fail(err instanceof BridgeError ? err.message : describe(err)),
      );
      return { confirmed };
    }
    try {
      await session.channel.execute(
        'conference',
        `${roomId}@${PROFILE}+flags{mute}`,
        applicationUuid,
        {
          eventLock: false,
        },
      );
    } catch (err) {
      membership.fail(describe(err));
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
