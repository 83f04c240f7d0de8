import { randomUUID } from 'node:crypto';
import { parseSessionId } from '@voicegw/shared';
import { peerNode } from '../cluster/sip-address.js';
import { BridgeError } from '../conference/bridge-leg.js';
import { nodeLegArgs, ORIGINATE_TIMED_OUT, originateJob } from '../esl/originate.js';
import { ChannelState, type Channel } from '../session/channel.js';
import { CALLER_HEADER, legChannel } from './leg.js';
import type { BridgeParty } from './party.js';

/** Variables that keep the party left behind ours: it parks (and stays up) when the other goes. */
const STAY = ['park_after_bridge=true', 'hangup_after_bridge=false'];

/** Sets STAY on a channel that exists already. */
async function stay(channel: Channel): Promise<void> {
  for (const setting of STAY) {
    const [name, value] = setting.split('=');
    const reply = await channel.api(`uuid_setvar ${channel.uuid} ${name} ${value}`);
    if (!reply.startsWith('+OK')) throw new BridgeError(`uuid_setvar: ${reply.trim()}`);
  }
}

/**
 * `uuid_bridge <a> <b>` once both park after the bridge; `a`, answered, is FreeSWITCH's
 * originator, whose channel reports CHANNEL_BRIDGE and CHANNEL_UNBRIDGE. Resolves once
 * FreeSWITCH took it; the parties' CHANNEL_BRIDGE confirms it.
 */
export async function bridgeChannels(a: Channel, b: Channel): Promise<void> {
  await Promise.all([stay(a), stay(b)]);
  const reply = await a.api(`uuid_bridge ${a.uuid} ${b.uuid}`);
  if (!reply.startsWith('+OK')) throw new BridgeError(`uuid_bridge: ${reply.trim()}`);
}

/**
 * The commanded side of a bridge to a session on another node: a leg from this FreeSWITCH to
 * the peer node's (BRIDGE_LEG_TEMPLATE, its FS_SIP_ADDRESS from its heartbeat), which that node
 * answers and bridges to its session, then the party's call bridged to the leg. The leg parks
 * rather than hangs up when either call leaves it, so that each node hangs up its own leg when
 * its session is done (BridgeParty). Throws BridgeError by `deadline`.
 */
export async function dialPeerNode(party: BridgeParty, deadline: number): Promise<void> {
  const { session } = party;
  const { node } = session;
  const prefix = parseSessionId(party.peerId)?.prefix ?? '';
  const peer = await peerNode(node, prefix);
  if (!peer.alive) throw new BridgeError("the other session's media node is not available");
  if (!peer.sipAddress)
    throw new BridgeError(
      "the other session's media node announces no SIP address (FS_SIP_ADDRESS)",
    );
  const leg = legChannel(node, randomUUID());
  party.linkTo({ kind: 'sip', leg });
  const target = node.config.BRIDGE_LEG_TEMPLATE.replaceAll('{session}', party.peerId).replaceAll(
    '{host}',
    peer.sipAddress,
  );
  const args = nodeLegArgs(
    {
      uuid: leg.uuid,
      target,
      callerId: session.callerId,
      headers: { [CALLER_HEADER]: session.id },
      variables: STAY,
    },
    deadline,
  );
  let result: string;
  try {
    result = await originateJob(node.esl, node.router, args, deadline);
  } catch (err) {
    leg.finish();
    throw new BridgeError(err instanceof Error ? err.message : String(err));
  }
  if (!result.startsWith('+OK')) {
    // FreeSWITCH's failure: a channel it made has hung up by now; one it never made never will.
    if (result !== ORIGINATE_TIMED_OUT && leg.state === ChannelState.New) leg.finish();
    throw new BridgeError(
      `the other session's node did not take the call: ${result.replace(/^-ERR\s*/, '')}`,
    );
  }
  await bridgeChannels(session.channel, leg);
}
