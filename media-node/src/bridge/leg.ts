import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import { Channel } from '../session/channel.js';

/** The called user a node takes as the far end of a bridge to its session <session id>. */
export const BRIDGE_USER_PREFIX = 'voicegw-bridge-';
/** X- header of the leg's INVITE: the session of the node that dialled (sip_h_ variable). */
export const CALLER_HEADER = 'X-Voicegw-Session';

/**
 * This node's end of a SIP leg between two bridged sessions' nodes: a channel that is nobody's
 * session, whose events go to the parties linked to it, and that leaves the router once
 * FreeSWITCH is done with it (or `finish()` is called for a leg that never came to be).
 */
export function legChannel(node: Pick<NodeContext, 'esl' | 'router'>, uuid: string): Channel {
  const leg = new Channel(uuid, node.esl, node.router);
  leg.attach();
  const onEvent = (event: FsEvent): void => {
    if (event.name === 'CHANNEL_HANGUP_COMPLETE') leg.finish();
  };
  leg.on('event', onEvent);
  return leg;
}
