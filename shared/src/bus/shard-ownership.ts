import type { Redis } from 'ioredis';
import { background } from '../async/background.js';
import type { Logger } from '../logger.js';
import type { RedisKeys } from '../redis/keys.js';
import { heartbeat, shuffled } from './dispatchers.js';
import type { Lease, LeaseKeeper } from './lease.js';

/** A shard this process holds the lease of. */
export interface Shard {
  readonly index: number;
  /** `shard-<index>`, the partition name handlers see. */
  readonly name: string;
  readonly stream: string;
  readonly lease: Lease;
  /** Entry ids handed to the handler and not acknowledged yet. */
  readonly unacked: Set<string>;
  /** Set once what the previous holder left pending has been handed over. */
  ready: boolean;
  releasing: boolean;
}

export interface OwnershipOptions {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly leases: LeaseKeeper;
  readonly shards: number;
  readonly leaseTtlMs: number;
  readonly dispatcherId: string;
  readonly log: Logger;
  /** A shard was taken: make it readable; a rejection gives it back. */
  readonly taken: (shard: Shard) => Promise<void>;
  /** A shard is being given up: resolve once nothing of it is in progress any more. */
  readonly leaving: (shard: Shard) => Promise<void>;
  /** Called after every balancing round (the router takes its own lease there). */
  readonly tick: () => Promise<void>;
}

/**
 * Which shards this dispatcher reads. Dispatchers announce themselves in a heartbeat set and
 * each aims for its share: it takes free shards up to ceil(N / live dispatchers) and hands back
 * the surplus, so a dead dispatcher's shards are taken over once its leases expire.
 */
export class ShardOwnership {
  readonly held = new Map<number, Shard>();
  private readonly releases = new Set<Promise<void>>();
  private stopRounds: (() => void) | undefined;
  private balancing: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly o: OwnershipOptions) {}

  get tickMs(): number {
    return this.o.leases.roundMs;
  }

  /** Balances now, then on every round of the leases (their extensions and the heartbeat share a write). */
  async start(): Promise<void> {
    await this.balance();
    this.stopRounds = this.o.leases.onRound(() => {
      this.balancing ??= this.balance().finally(() => (this.balancing = undefined));
    });
  }

  /** Shard names held and not being given up. */
  owned(): readonly string[] {
    return [...this.held.values()].filter((s) => !s.releasing).map((s) => s.name);
  }

  /** Gives every shard up (waiting for work in progress) and leaves the heartbeat set. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopRounds?.();
    await this.balancing;
    const held = [...this.held.values()];
    if (held.length > 0) this.o.log.info({ shards: held.map((s) => s.name) }, 'leaving shards');
    for (const shard of held) this.release(shard, true);
    await Promise.allSettled([...this.releases]);
    await this.o.redis.zrem(this.o.keys.dispatchers(), this.o.dispatcherId).catch(() => undefined);
  }

  private async balance(): Promise<void> {
    if (this.stopped) return;
    const { redis, keys, dispatcherId, leaseTtlMs, shards, log } = this.o;
    try {
      const live = await heartbeat(redis, keys, dispatcherId, leaseTtlMs);
      const target = Math.ceil(shards / live);
      for (const shard of this.held.values()) {
        if (!shard.releasing && !shard.lease.valid()) this.release(shard, false);
      }
      const taken: string[] = [];
      for (const index of shuffled(shards)) {
        if (this.owned().length >= target || this.stopped) break;
        if (!this.held.has(index) && (await this.acquire(index))) taken.push(`shard-${index}`);
      }
      if (taken.length > 0) log.info({ shards: taken, live, target }, 'reading shards');
      const surplus = [...this.held.values()].filter((s) => !s.releasing).slice(target);
      if (surplus.length > 0) {
        log.info({ shards: surplus.map((s) => s.name), live, target }, 'handing shards back');
      }
      for (const shard of surplus) this.release(shard, true);
      await this.o.tick();
    } catch (err) {
      log.warn({ err }, 'shard balancing failed');
    }
  }

  private async acquire(index: number): Promise<boolean> {
    const lease = await this.o.leases.tryAcquire(this.o.keys.eventShardLease(index), () => {
      const shard = this.held.get(index);
      if (shard && !shard.releasing) this.release(shard, false);
    });
    if (!lease) return false;
    if (this.stopped) {
      await lease.release();
      return false;
    }
    const shard: Shard = {
      index,
      name: `shard-${index}`,
      stream: this.o.keys.eventShard(index),
      lease,
      unacked: new Set(),
      ready: false,
      releasing: false,
    };
    this.held.set(index, shard);
    try {
      await this.o.taken(shard);
      return true;
    } catch (err) {
      this.o.log.warn({ err, shard: shard.name }, 'taking the shard failed; released');
      this.release(shard, true);
      return false;
    }
  }

  /** Stops reading a shard; its lease goes once nothing of it is in progress any more. */
  release(shard: Shard, voluntary: boolean): void {
    if (shard.releasing) return;
    shard.releasing = true;
    if (voluntary) this.o.log.debug({ shard: shard.name }, 'leaving shard');
    else this.o.log.warn({ shard: shard.name }, 'shard lease lost; leaving the shard');
    const done = (async () => {
      await this.o.leaving(shard);
      if (this.held.get(shard.index) === shard) this.held.delete(shard.index);
      await shard.lease.release();
    })().catch((err: unknown) => this.o.log.warn({ err, shard: shard.name }, 'release failed'));
    this.releases.add(done);
    background(
      done.finally(() => this.releases.delete(done)),
      this.o.log,
      'releasing a shard',
    );
  }
}
