import type { NodeContext } from '../context.js';

/** Another node as its heartbeat announces it: gone, or alive with its FS_SIP_ADDRESS if set. */
export type PeerNode =
  { readonly alive: false } | { readonly alive: true; readonly sipAddress: string | undefined };

/** Where the FreeSWITCH of node `prefix` takes SIP calls from other nodes' (its heartbeat). */
export async function peerNode(node: NodeContext, prefix: string): Promise<PeerNode> {
  const [name, sipAddress] = await node.redis.hmget(
    node.keys.nodeHeartbeat(prefix),
    'name',
    'sip_address',
  );
  if (!name) return { alive: false };
  return { alive: true, sipAddress: sipAddress ?? undefined };
}
