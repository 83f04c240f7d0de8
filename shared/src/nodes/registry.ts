import type { Redis } from 'ioredis';
import { nodePrefixFor } from '../ids.js';
import type { RedisKeys } from '../redis/keys.js';

/**
 * A media node's FreeSWITCH: `ok`; `unreachable` (no event socket connection, e.g. a wrong
 * password: the node takes no calls); `dial_target_unusable` (connected, but the gateway
 * DIAL_STRING_TEMPLATE names does not exist, so every dial would fail).
 */
export type FreeswitchState = 'ok' | 'unreachable' | 'dial_target_unusable';

const FREESWITCH_STATES: readonly string[] = ['ok', 'unreachable', 'dial_target_unusable'];
const isFreeswitchState = (value: string | undefined): value is FreeswitchState =>
  value !== undefined && FREESWITCH_STATES.includes(value);

/** What a media node announces in each heartbeat. */
export interface NodeHeartbeat {
  readonly name: string;
  /** Concurrent calls this node accepts. */
  readonly capacity: number;
  readonly active_sessions: number;
  /** Further outbound calls it accepts now (0 when draining or full). */
  readonly outbound_capacity: number;
  readonly draining: boolean;
  /**
   * host:port at which other nodes' FreeSWITCH reach this node's FreeSWITCH over SIP (the
   * bridge legs of cross-node conference members); absent when the node does not announce one.
   */
  readonly sip_address?: string;
  /** Absent from a node that does not report it (an older version): taken as `ok`. */
  readonly freeswitch?: FreeswitchState;
}

export interface LiveNode extends NodeHeartbeat {
  readonly prefix: string;
}

export class PrefixCollisionError extends Error {
  constructor(prefix: string, owner: string, name: string) {
    super(
      `node prefix ${prefix} of "${name}" is already registered by "${owner}"; rename the node`,
    );
    this.name = 'PrefixCollisionError';
  }
}

/** Media nodes: prefix registration, heartbeats with a TTL, and placement by load. */
export class NodeRegistry {
  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
  ) {}

  /** Registers the node's prefix (stable for a stable name); a collision is a startup error. */
  async claimPrefix(nodeName: string): Promise<string> {
    const prefix = nodePrefixFor(nodeName);
    const claimed = await this.redis.set(this.keys.nodeOwner(prefix), nodeName, 'NX');
    if (claimed === null) {
      const owner = await this.redis.get(this.keys.nodeOwner(prefix));
      if (owner !== nodeName) throw new PrefixCollisionError(prefix, owner ?? '?', nodeName);
    }
    await this.redis.sadd(this.keys.nodes(), prefix);
    return prefix;
  }

  async heartbeat(prefix: string, beat: NodeHeartbeat, ttlMs: number): Promise<void> {
    const key = this.keys.nodeHeartbeat(prefix);
    const multi = this.redis.multi().hset(key, {
      name: beat.name,
      capacity: beat.capacity,
      active_sessions: beat.active_sessions,
      outbound_capacity: beat.outbound_capacity,
      draining: beat.draining ? '1' : '0',
      ...(beat.sip_address ? { sip_address: beat.sip_address } : {}),
      ...(beat.freeswitch ? { freeswitch: beat.freeswitch } : {}),
    });
    // A node restarted without an address must not keep announcing its old one.
    if (!beat.sip_address) multi.hdel(key, 'sip_address');
    await multi.pexpire(key, ttlMs).sadd(this.keys.nodes(), prefix).exec();
  }

  /** Removes the heartbeat at once (a clean shutdown), so no new work is placed on the node. */
  async retire(prefix: string): Promise<void> {
    await this.redis.del(this.keys.nodeHeartbeat(prefix));
  }

  /** The SIP address a live node announces; undefined when it is gone or announces none. */
  async sipAddress(prefix: string): Promise<string | undefined> {
    return (await this.redis.hget(this.keys.nodeHeartbeat(prefix), 'sip_address')) ?? undefined;
  }

  async live(): Promise<LiveNode[]> {
    const prefixes = await this.redis.smembers(this.keys.nodes());
    if (prefixes.length === 0) return [];
    const pipeline = this.redis.pipeline();
    for (const prefix of prefixes) pipeline.hgetall(this.keys.nodeHeartbeat(prefix));
    const replies = (await pipeline.exec()) ?? [];
    const nodes: LiveNode[] = [];
    replies.forEach(([error, raw], i) => {
      const beat = raw as Record<string, string> | null;
      const prefix = prefixes[i];
      if (error || !beat?.name || prefix === undefined) return;
      nodes.push({
        prefix,
        name: beat.name,
        capacity: Number(beat.capacity),
        active_sessions: Number(beat.active_sessions),
        outbound_capacity: Number(beat.outbound_capacity),
        draining: beat.draining === '1',
        ...(beat.sip_address ? { sip_address: beat.sip_address } : {}),
        ...(isFreeswitchState(beat.freeswitch) ? { freeswitch: beat.freeswitch } : {}),
      });
    });
    return nodes;
  }

  /**
   * The live, non-draining node with the lowest load ratio, or undefined when there is none; a
   * node without its FreeSWITCH cannot host a room or a call.
   * Ties go to a random one of the tied nodes: new rooms hold no sessions yet, so a fixed choice
   * would put every room of a quiet cluster on the same node.
   */
  async leastLoaded(options: { readonly outbound?: boolean } = {}): Promise<LiveNode | undefined> {
    const candidates = (await this.live()).filter(
      (n) =>
        !n.draining &&
        n.freeswitch !== 'unreachable' &&
        (!options.outbound || n.outbound_capacity > 0),
    );
    const load = (n: LiveNode): number => n.active_sessions / Math.max(1, n.capacity);
    const lowest = Math.min(...candidates.map(load));
    const tied = candidates.filter((n) => load(n) === lowest);
    return tied[Math.floor(Math.random() * tied.length)];
  }
}
