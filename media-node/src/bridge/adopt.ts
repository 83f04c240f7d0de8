import { clearRefusedBridge, parseSessionId, type SessionBridge } from '@voicegw/shared';
import type { NodeWithSessions } from '../session/registry.js';
import type { Session } from '../session/session.js';
import { legChannel } from './leg.js';
import { BridgeParty } from './party.js';

/**
 * The bridge of a session this node adopted after a restart: its party is taken up again, linked
 * to what FreeSWITCH still has it bridged to (`bridge_to`: the peer's channel here, or this
 * node's end of the SIP leg), so that its call.unbridged comes when the bridge ends. A bridge
 * FreeSWITCH no longer has ended while the node was away: the party leaves it now. One still
 * being set up died with the command that set it up: both sides are cleared.
 */
export async function adoptBridge(
  node: NodeWithSessions,
  session: Session,
  bridge: SessionBridge,
): Promise<void> {
  const peerId = bridge.bridge_peer;
  if (bridge.bridge_state !== 'bridged' && bridge.bridge_state !== 'unbridging') {
    await clearRefusedBridge(node, session.id, peerId);
    return;
  }
  const party = new BridgeParty(session, peerId, bridge.bridge_uid, { confirmed: true });
  node.streams.yieldAudio(session, party.ended);
  const { channel } = session;
  const other = (await channel.api(`uuid_getvar ${channel.uuid} bridge_to`)).trim();
  if (!other || other === '_undef_' || other.startsWith('-ERR')) {
    session.enqueue(() => party.end(false));
    return;
  }
  if (parseSessionId(peerId)?.prefix !== node.prefix) {
    party.linkTo({ kind: 'sip', leg: legChannel(node, other) });
    node.bridges.watch(party);
    return;
  }
  const peer = node.sessions.get(peerId);
  if (peer) party.linkTo({ kind: 'local', peer: peer.channel });
}
