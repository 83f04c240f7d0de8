import { clearRefusedBridge, DEFERRED_TIMEOUT_MS, hopTrace, parseSessionId } from '@voicegw/shared';
import { bridgeChannels, dialPeerNode } from '../bridge/connect.js';
import { BridgeParty, separate } from '../bridge/party.js';
import { BridgeError } from '../conference/bridge-leg.js';
import type { NodeWithSessions } from '../session/registry.js';
import { confirmation, describe, type CommandContext, type SessionCommand } from './types.js';

/**
 * bridge: the api marked both sessions `bridging`. On one node: `uuid_bridge <this> <peer>`,
 * both set to park when the other goes. The peer on another node: a SIP leg to that node's
 * FreeSWITCH, which bridges it to the peer (bridge/incoming.ts), and this call bridged to the
 * leg. Each party's CHANNEL_BRIDGE publishes its call.bridged (by its own node); command.result
 * follows this one's, within 2000 ms. A bridge that fails clears both sessions' fields, with
 * neither call.bridged nor call.unbridged.
 */
export const bridge: SessionCommand<'bridge'> = {
  name: 'bridge',
  esl: 'api uuid_setvar <uuid> park_after_bridge true (hangup_after_bridge false), both calls; api uuid_bridge <uuid> <peer uuid>; another node: bgapi originate <BRIDGE_LEG_TEMPLATE> &park(), then uuid_bridge <uuid> <leg>',
  confirmedBy: 'CHANNEL_BRIDGE naming the call (Bridge-A/B-Unique-ID) within 2000 ms',
  async start(ctx) {
    const { session, message } = ctx;
    const { node } = session;
    const peerId = message.args.session_uuid;
    const deadline = Date.now() + DEFERRED_TIMEOUT_MS;
    const party = new BridgeParty(session, peerId, message.command_uid);
    node.streams.yieldAudio(session, party.ended);
    const { confirmed, settle } = confirmation();
    const fail = (error: string, bridged: boolean): void => {
      party.abandon();
      settle(session.serial(() => refused(ctx, party, error, bridged)));
    };
    const connecting =
      parseSessionId(peerId)?.prefix === node.prefix
        ? bridgeHere(ctx.node, party, deadline)
        : dialPeerNode(party, deadline).then(() => node.bridges.watch(party));
    connecting.then(
      () => {
        const timer = setTimeout(() => party.abandon(), Math.max(0, deadline - Date.now()));
        const confirmedOrNot = (ok: boolean): void => {
          clearTimeout(timer);
          // As answer's: FreeSWITCH's confirmation (CHANNEL_BRIDGE, call.bridged published).
          hopTrace.mark(message.operation_id, 'node.confirmed');
          if (!ok) return fail('the bridge was not confirmed within 2000 ms', true);
          settle(
            session.serial(() => ctx.result(true, undefined, [], { peer_session_uuid: peerId })),
          );
        };
        party.confirmed.then(confirmedOrNot, () => confirmedOrNot(false));
      },
      (err: unknown) => fail(err instanceof BridgeError ? err.message : describe(err), false),
    );
    return { confirmed };
  },
};

/** Both calls on this node: the peer's party too, then one uuid_bridge. */
async function bridgeHere(
  node: NodeWithSessions,
  party: BridgeParty,
  deadline: number,
): Promise<void> {
  const { session } = party;
  const peer = node.sessions.get(party.peerId);
  if (!peer || peer.ended) throw new BridgeError('the other session has ended');
  if (peer.bridge) throw new BridgeError('the other session is in another bridge');
  const other = new BridgeParty(peer, session.id, party.uid);
  node.streams.yieldAudio(peer, other.ended);
  party.linkTo({ kind: 'local', peer: peer.channel });
  other.linkTo({ kind: 'local', peer: session.channel });
  // A bridge that fails on this side never was on the other.
  const abandonUnlessConfirmed = (ok: boolean): void => {
    if (!ok) other.abandon();
  };
  party.confirmed.then(abandonUnlessConfirmed, () => abandonUnlessConfirmed(false));
  if (Date.now() > deadline) throw new BridgeError('the bridge was not set up within 2000 ms');
  await bridgeChannels(session.channel, peer.channel);
}

/**
 * A bridge that did not come to be: both sides' fields cleared, no event but this result. If
 * FreeSWITCH took the bridge (`bridged`) but it was not confirmed in time, the calls are
 * separated: each parks.
 */
async function refused(
  ctx: CommandContext<'bridge'>,
  party: BridgeParty,
  error: string,
  bridged: boolean,
): Promise<void> {
  const { session } = ctx;
  session.log.warn({ peer: party.peerId, error }, 'bridge failed');
  await clearRefusedBridge(session.node, session.id, party.peerId);
  if (bridged) await separate(session.channel).catch(() => undefined);
  await ctx.result(false, error, [], { peer_session_uuid: party.peerId });
}
