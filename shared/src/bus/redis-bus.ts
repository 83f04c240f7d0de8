import type { Redis } from 'ioredis';
import type { RedisEndpoint } from '../config/redis.js';
import type { Logger } from '../logger.js';
import { createRedis } from '../redis/client.js';
import type { RedisKeys } from '../redis/keys.js';
import { LeaseKeeper } from './lease.js';
import { IngestRouter, sleep } from './router.js';
import { ShardOwnership, type Shard } from './shard-ownership.js';
import { ShardStreamSink } from './shard-sink.js';
import {
  checkShardCount,
  ensureGroup,
  pendingEntries,
  SHARD_CONSUMER,
  SHARD_GROUP,
  strandedEntries,
  toEvents,
  trimAcknowledged,
  type StreamEntry,
} from './shard-streams.js';
import type { BusEvent, BusHandler, EventBus } from './types.js';

export interface RedisBusOptions {
  readonly redisEndpoint: RedisEndpoint;
  /** Command connection (acks, leases, maintenance). */
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly shards: number;
  readonly leaseTtlMs: number;
  /** Unacknowledged events per shard before its reading pauses. */
  readonly buffer: number;
  /** Unique id of this dispatcher process. */
  readonly dispatcherId: string;
  readonly log: Logger;
  readonly blockMs?: number;
  /**
   * How often pending entries are swept and shard streams trimmed (5 s), rounded to a whole
   * number of lease rounds, whose wake-up it shares.
   */
  readonly maintenanceIntervalMs?: number;
}

const MAINTENANCE_INTERVAL_MS = 5000;
/**
 * How long one XREADGROUP waits for events. A change of the shards read (taken, given up, a
 * buffer full or freed) interrupts it (CLIENT UNBLOCK) and a stop disconnects it, so nothing
 * needs it to return sooner; each return with nothing is a wake-up of the dispatcher and of Redis.
 */
const BLOCK_MS = 5000;
/** CLIENT UNBLOCK can reach Redis just before the read it is for: tried again this often. */
const UNBLOCK_RETRY_MS = 10;
const UNBLOCK_TRIES = 3;
/** Entries per shard per read; a shard may exceed its buffer by less than one read. */
const READ_COUNT = 500;
/**
 * How long acknowledgements gather before they go out together, and how many may gather. Only
 * the XACK waits, never a delivery; a dispatcher killed meanwhile leaves those events to the
 * shard's next holder, which delivers them again with the same webhook-id (at least once). At
 * an ordinary rate each event came alone, and its XACK cost a timer and a reply, two wake-ups
 * of the dispatcher and one of Redis per event: 100 ms gathers a call's events into one.
 */
const ACK_WINDOW_MS = 100;
const ACK_BATCH_MAX = 1000;

/** The acknowledgements of one shard gathered in one window, and how their XACK turned out. */
interface AckBatch {
  readonly ids: string[];
  readonly done: Promise<void>;
  readonly settle: (err: Error | null) => void;
}

/**
 * The Redis event bus: N shard streams, each read by one dispatcher at a time under a redlock
 * lease. Dispatchers announce themselves in a heartbeat set and each aims for its share of the
 * shards: it takes free shards up to ceil(N / live dispatchers) and hands back the surplus, so a
 * dead dispatcher's shards are taken over once its leases expire. One XREADGROUP on a blocking
 * connection reads every owned shard; a shard whose unacknowledged events reach the buffer is
 * left out of it until acknowledgements catch up.
 */
export class RedisEventBus implements EventBus {
  private handler: BusHandler | undefined;
  private readonly ownership: ShardOwnership;
  private readonly router: IngestRouter;
  private readonly leases: LeaseKeeper;
  private stopMaintenance: (() => void) | undefined;
  private readonly blocking: Redis;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Acknowledgements gathering for the next XACKs, by shard index (see ACK_WINDOW_MS). */
  private pendingAcks = new Map<number, AckBatch>();
  private pendingAckCount = 0;
  private ackTimer: NodeJS.Timeout | undefined;
  private sweeping = false;
  private readonly ackedDuringSweep: [Shard, string][] = [];
  /** The XREADGROUP in flight, if any. */
  private reading: Promise<unknown> | undefined;
  /** The blocking connection's CLIENT ID, while known (learnt again after it reconnects). */
  private blockingId: number | undefined;
  /** Shards acknowledged on since their last trim (maintenance trims only those). */
  private readonly ackedSinceTrim = new Set<number>();
  private stopped = false;

  constructor(private readonly o: RedisBusOptions) {
    const leases = new LeaseKeeper(o.redis, o.leaseTtlMs, o.log);
    this.leases = leases;
    this.ownership = new ShardOwnership({
      redis: o.redis,
      keys: o.keys,
      leases,
      shards: o.shards,
      leaseTtlMs: o.leaseTtlMs,
      dispatcherId: o.dispatcherId,
      log: o.log,
      taken: (shard) => this.take(shard),
      leaving: async (shard) => {
        // A blocking read issued before may still return entries of this shard; they must be
        // pending before the lease goes, so that the next holder's first read includes them.
        this.interruptRead();
        await this.reading?.catch(() => undefined);
        await this.handler?.revoked(shard.name);
      },
      tick: () => this.router.tick(),
    });
    this.router = new IngestRouter({
      redisEndpoint: o.redisEndpoint,
      redis: o.redis,
      keys: o.keys,
      leases,
      sink: new ShardStreamSink(o.keys, o.shards),
      log: o.log,
      ...(o.blockMs ? { blockMs: o.blockMs } : {}),
    });
    this.blocking = createRedis(o.redisEndpoint, { name: 'dispatcher:bus' });
    this.blocking.on('error', (err) => o.log.debug({ err }, 'bus connection error'));
    this.blocking.on('close', () => (this.blockingId = undefined));
  }

  async start(handler: BusHandler): Promise<void> {
    this.handler = handler;
    await checkShardCount(this.o.redis, this.o.keys, this.o.shards);
    await this.ownership.start();
    // On the lease rounds' timer: its commands leave with theirs, and no wake-up of its own.
    const every = Math.max(
      1,
      Math.round((this.o.maintenanceIntervalMs ?? MAINTENANCE_INTERVAL_MS) / this.leases.roundMs),
    );
    let round = 0;
    this.stopMaintenance = this.leases.onRound(() => {
      if (++round % every === 0) void this.maintain();
    });
    this.loop = this.read();
  }

  owned(): readonly string[] {
    return this.ownership.owned();
  }

  routing(): boolean {
    return this.router.running;
  }

  async ack(event: BusEvent): Promise<void> {
    const index = Number(event.partition.slice('shard-'.length));
    // Acknowledged even after the shard moved on: the event was handled, so its next owner
    // need not handle it again.
    await this.xackSoon(index, event.id);
    this.ackedSinceTrim.add(index);
    const shard = this.ownership.held.get(index);
    if (!shard) return;
    // A sweep's reply may still list the entry (its XAUTOCLAIM ran before this XACK): it must
    // find the entry held, or it would hand it over a second time.
    if (this.sweeping) this.ackedDuringSweep.push([shard, event.id]);
    else this.forget(shard, event.id);
  }

  /**
   * Acknowledgements gather for ACK_WINDOW_MS and go out together: one XACK per shard, all of
   * them in one pipeline (one socket write). Each shard's acknowledgements succeed or fail on
   * their own XACK's reply.
   */
  private xackSoon(index: number, id: string): Promise<void> {
    let batch = this.pendingAcks.get(index);
    if (!batch) {
      let settle: AckBatch['settle'] = () => undefined;
      const done = new Promise<void>((resolve, reject) => {
        settle = (err) => (err ? reject(err) : resolve());
      });
      batch = { ids: [], done, settle };
      this.pendingAcks.set(index, batch);
    }
    batch.ids.push(id);
    if (++this.pendingAckCount >= ACK_BATCH_MAX) this.flushAcks();
    else this.ackTimer ??= setTimeout(() => this.flushAcks(), ACK_WINDOW_MS);
    return batch.done;
  }

  private flushAcks(): void {
    clearTimeout(this.ackTimer);
    this.ackTimer = undefined;
    const batches = [...this.pendingAcks];
    this.pendingAcks = new Map();
    this.pendingAckCount = 0;
    if (batches.length === 0) return;
    const pipeline = this.o.redis.pipeline();
    for (const [index, { ids }] of batches) {
      pipeline.xack(this.o.keys.eventShard(index), SHARD_GROUP, ...ids);
    }
    pipeline.exec().then(
      (replies) =>
        batches.forEach(([, batch], i) =>
          batch.settle(replies?.[i]?.[0] ?? (replies?.[i] ? null : new Error('no XACK reply'))),
        ),
      (err: Error) => {
        for (const [, batch] of batches) batch.settle(err);
      },
    );
  }

  private forget(shard: Shard, id: string): void {
    if (!shard.unacked.delete(id) || shard.unacked.size >= this.o.buffer) return;
    this.poke();
    // Left out of the read in flight while its buffer was full: read it again now.
    if (shard.unacked.size === this.o.buffer - 1) this.interruptRead();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.stopMaintenance?.();
    this.blocking.disconnect();
    this.poke();
    await this.loop;
    await this.router.stop();
    await this.ownership.stop();
    this.flushAcks(); // whatever gathered since: sent before the caller closes the connection
  }

  /** A shard just taken: what the previous holder left unacknowledged comes first, in order. */
  private async take(shard: Shard): Promise<void> {
    await this.handler?.assigned(shard.name);
    await ensureGroup(this.o.redis, shard.stream);
    for await (const entries of pendingEntries(this.o.redis, shard.stream)) {
      this.hand(shard, entries);
    }
    shard.ready = true;
    this.poke();
    this.interruptRead();
  }

  /**
   * Per owned shard: hands over entries left pending by a read that raced with a lease change
   * (nobody holds them in memory), then trims the stream below what has been acknowledged.
   */
  private async maintain(): Promise<void> {
    this.sweeping = true;
    try {
      await this.sweep();
    } finally {
      this.sweeping = false;
      for (const [shard, id] of this.ackedDuringSweep.splice(0)) this.forget(shard, id);
    }
  }

  /**
   * Every shard at once, so that their commands share one write and one reply: one round trip
   * a round while nothing happens, more only for shards with stranded entries or acknowledged
   * since their last trim.
   */
  private async sweep(): Promise<void> {
    const trim = new Set(this.ackedSinceTrim);
    this.ackedSinceTrim.clear();
    const shards = [...this.ownership.held.values()].filter(
      (s) => !this.stopped && s.ready && !s.releasing && s.lease.valid(),
    );
    await Promise.all(shards.map((shard) => this.maintainShard(shard, trim.has(shard.index))));
  }

  private async maintainShard(shard: Shard, trim: boolean): Promise<void> {
    try {
      const idleMs = this.o.leaseTtlMs * 2;
      for await (const entries of strandedEntries(this.o.redis, shard.stream, idleMs)) {
        if (!shard.releasing) this.hand(shard, entries);
      }
      if (trim) await trimAcknowledged(this.o.redis, shard.stream);
    } catch (err) {
      if (trim) this.ackedSinceTrim.add(shard.index);
      this.o.log.warn({ err, shard: shard.name }, 'shard maintenance failed');
    }
  }

  private readable(): Shard[] {
    return [...this.ownership.held.values()].filter(
      (s) => s.ready && !s.releasing && s.lease.valid() && s.unacked.size < this.o.buffer,
    );
  }

  private async read(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      const shards = this.readable();
      if (shards.length === 0) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, this.ownership.tickMs).unref();
        });
        continue;
      }
      try {
        this.blockingId ??= Number(await this.blocking.client('ID'));
        this.reading = this.blocking.xreadgroup(
          'GROUP',
          SHARD_GROUP,
          SHARD_CONSUMER,
          'COUNT',
          Math.min(READ_COUNT, this.o.buffer),
          'BLOCK',
          this.o.blockMs ?? BLOCK_MS,
          'STREAMS',
          ...shards.map((s) => s.stream),
          ...shards.map(() => '>'),
        );
        const reply = (await this.reading) as [string, StreamEntry[]][] | null;
        this.reading = undefined;
        failures = 0;
        for (const [stream, entries] of reply ?? []) {
          const shard = shards.find((s) => s.stream === stream);
          if (shard && !shard.releasing) this.hand(shard, entries);
          // Otherwise the entries stay pending; the shard's next holder reclaims them.
        }
      } catch (err) {
        this.reading = undefined;
        if (this.stopped) return;
        failures++;
        if (String(err).includes('NOGROUP')) {
          await Promise.all(shards.map((s) => ensureGroup(this.o.redis, s.stream))).catch(
            () => undefined,
          );
        } else this.o.log.warn({ err }, 'reading the event bus failed');
        await sleep(Math.min(2000, 50 * 2 ** failures));
      }
    }
  }

  /** Hands entries to the handler, skipping those it already holds. */
  private hand(shard: Shard, entries: readonly StreamEntry[]): void {
    const { events, unreadable } = toEvents(shard.name, entries, shard.unacked);
    for (const id of unreadable) {
      // Trimmed or malformed: nothing to deliver.
      void this.o.redis.xack(shard.stream, SHARD_GROUP, id).catch(() => undefined);
    }
    for (const event of events) shard.unacked.add(event.id);
    if (events.length > 0) this.handler?.receive(events);
  }

  private poke(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /**
   * Makes the XREADGROUP in flight return now, empty (CLIENT UNBLOCK from the command
   * connection), so that the next read covers the shards as they are. Unknown after a reconnect
   * until the read resent meanwhile returns: that read then ends on its BLOCK_MS.
   */
  private interruptRead(tries = UNBLOCK_TRIES): void {
    const { reading, blockingId } = this;
    if (!reading || blockingId === undefined) return;
    this.o.redis.client('UNBLOCK', blockingId).then(
      (unblocked) => {
        // 0: Redis had not blocked the read yet (it came on another connection, a moment later).
        if (Number(unblocked) === 1 || tries <= 1) return;
        setTimeout(() => {
          if (this.reading === reading) this.interruptRead(tries - 1);
        }, UNBLOCK_RETRY_MS).unref();
      },
      (err: unknown) => this.o.log.debug({ err }, 'interrupting the bus read failed'),
    );
  }
}
