import type { NodeContext, WatchedParty } from '../context.js';

/**
 * The parties of this node bridged over SIP to a session on another node. That node may die
 * without a word while its FreeSWITCH keeps the call up: the sweeper then ends its session
 * (call.unbridged, call.hangup), and this node, seeing the peer's session ended, hangs its own
 * leg up, so that its party parks and gets its call.unbridged (peer_hangup). Looked at every
 * SWEEP_INTERVAL_MS, in one round trip for all of them.
 */
export class SipBridgeWatch {
  private readonly parties = new Set<WatchedParty>();
  private timer: NodeJS.Timeout | undefined;
  private checking: Promise<void> | undefined;

  constructor(private readonly node: NodeContext) {}

  watch(party: WatchedParty): void {
    this.parties.add(party);
    const forget = (): void => void this.parties.delete(party);
    party.ended.then(forget, forget);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.checking ??= this.check().finally(() => (this.checking = undefined));
    }, this.node.config.SWEEP_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
  }

  private async check(): Promise<void> {
    const bridged = [...this.parties].filter((party) => party.bridged);
    if (bridged.length === 0) return;
    const { redis, keys, log } = this.node;
    try {
      const pipeline = redis.pipeline();
      for (const party of bridged) pipeline.hexists(keys.session(party.peerId), 'ended_at');
      const replies = (await pipeline.exec()) ?? [];
      bridged.forEach((party, i) => {
        if (replies[i]?.[1] !== 1) return;
        log.info({ peer: party.peerId }, 'the bridged peer ended elsewhere: leaving the bridge');
        party.dropLeg();
      });
    } catch (err) {
      log.warn({ err }, 'bridged peers not checked');
    }
  }
}
