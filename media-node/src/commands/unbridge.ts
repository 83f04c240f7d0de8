import { DEFERRED_TIMEOUT_MS } from '@voicegw/shared';
import { separate } from '../bridge/party.js';
import { confirmation, describe, type SessionCommand } from './types.js';

/**
 * unbridge: the api marked both sessions `unbridging`. On one node the call is parked
 * (`uuid_park`), which ends FreeSWITCH's bridge and parks the peer too (park_after_bridge); to
 * another node, this node's SIP leg is hung up, and each call parks. Each party's
 * CHANNEL_UNBRIDGE publishes its call.unbridged (reason unbridged, by its own node);
 * command.result follows this one's.
 */
export const unbridge: SessionCommand<'unbridge'> = {
  name: 'unbridge',
  esl: 'api uuid_park <uuid>; a peer on another node: api uuid_kill <leg uuid>',
  confirmedBy: 'CHANNEL_UNBRIDGE naming the call (its call.unbridged), within 2000 ms',
  async start(ctx) {
    const { session } = ctx;
    const party = session.bridge;
    if (!party?.bridged) {
      await ctx.result(false, 'Session is not bridged');
      return;
    }
    const detail = { peer_session_uuid: party.peerId };
    try {
      if (party.leg) party.dropLeg();
      else {
        const reply = await separate(session.channel);
        if (!reply.startsWith('+OK')) throw new Error(`uuid_park: ${reply.trim()}`);
      }
    } catch (err) {
      await ctx.result(false, describe(err), [], detail);
      return;
    }
    const { confirmed, settle } = confirmation();
    const timer = setTimeout(() => {
      settle(
        session.serial(() =>
          ctx.result(false, 'unbridge not confirmed within 2000 ms', [], detail),
        ),
      );
    }, DEFERRED_TIMEOUT_MS);
    // The party's call.unbridged is queued on the session before this result.
    const left = (): void => {
      clearTimeout(timer);
      settle(session.serial(() => ctx.result(true, undefined, [], detail)));
    };
    party.ended.then(left, left);
    return { confirmed };
  },
};
