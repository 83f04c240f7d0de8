import type { Redis } from 'ioredis';
import {
  Kafka,
  logLevel,
  type Consumer,
  type EachBatchPayload,
  type LogEntry,
  type Producer,
} from 'kafkajs';
import { background } from '../async/background.js';
import type { RedisEndpoint } from '../config/redis.js';
import type { Logger } from '../logger.js';
import type { RedisKeys } from '../redis/keys.js';
import { kafkaSocketFactory } from './kafka-socket.js';
import { LeaseKeeper } from './lease.js';
import { OffsetTrack } from './offset-track.js';
import {
  IngestRouter,
  SOURCE_FIELD,
  type IngestEntry,
  type RouterSink,
  type ShardAppend,
} from './router.js';
import { offsetPosition } from './shard.js';
import type { BusEvent, BusHandler, EventBus } from './types.js';

export interface KafkaBusOptions {
  readonly brokers: readonly string[];
  readonly clientId: string;
  readonly topic: string;
  /** Partitions of the topic when it has to be created. */
  readonly partitions: number;
  /** Unacknowledged events per partition before it is paused. */
  readonly buffer: number;
  /** Longest a fetch waits at the broker for events (kafkajs maxWaitTimeInMs). */
  readonly maxWaitMs: number;
  /** Partitions of one fetch response handed over at once (partitionsConsumedConcurrently). */
  readonly partitionsConcurrency: number;
  readonly groupId?: string;
  /** The ingest stream and the router's lease live in Redis. */
  readonly redisEndpoint: RedisEndpoint;
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly leaseTtlMs: number;
  readonly log: Logger;
}

export const KAFKA_GROUP = 'voicegw-dispatcher';
const COMMIT_DELAY_MS = 100;

/** Sends events to the topic keyed by app id: one app, one partition, publish order. */
export class KafkaSink implements RouterSink {
  constructor(
    private readonly producer: Producer,
    private readonly topic: string,
  ) {}

  /**
   * Stored in the topic before the router's step moves its cursor: a router displaced meanwhile
   * has forwarded a batch its successor forwards again, with the same event ids (at least once).
   */
  async forward(entries: readonly IngestEntry[]): Promise<readonly ShardAppend[]> {
    if (entries.length > 0) {
      await this.producer.send({
        topic: this.topic,
        acks: -1,
        messages: entries.map((e) => ({
          key: e.appId,
          value: e.body,
          headers: { [SOURCE_FIELD]: e.id },
        })),
      });
    }
    return [];
  }

  async close(): Promise<void> {
    await this.producer.disconnect();
  }
}

/**
 * The Kafka event bus (kafkajs, kept behind `EventBus` because kafkajs is in maintenance mode).
 * The router forwards the ingest stream with an idempotent producer (`maxInFlightRequests: 1`,
 * acks from all replicas), so an app's events keep their order in its partition. The consumer
 * group hands each batch over at once and commits, per partition, only below the oldest event
 * not yet acknowledged; a partition whose unacknowledged events reach the buffer is paused
 * (its head is waiting for a retry) instead of blocking `eachBatch` past the session timeout.
 */
export class KafkaEventBus implements EventBus {
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private readonly consumer: Consumer;
  private readonly router: IngestRouter;
  private handler: BusHandler | undefined;
  private readonly tracks = new Map<number, OffsetTrack>();
  private readonly ready = new Map<number, Promise<void>>();
  private readonly commitTimers = new Map<number, NodeJS.Timeout>();
  private routerTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: KafkaBusOptions) {
    this.kafka = new Kafka({
      clientId: o.clientId,
      brokers: [...o.brokers],
      socketFactory: kafkaSocketFactory,
      logLevel: logLevel.WARN,
      logCreator: () => (entry: LogEntry) => {
        const { message, ...extra } = entry.log;
        o.log.warn({ kafka: entry.namespace, ...extra }, message);
      },
    });
    this.producer = this.kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      allowAutoTopicCreation: false,
    });
    this.consumer = this.kafka.consumer({
      groupId: o.groupId ?? KAFKA_GROUP,
      maxWaitTimeInMs: o.maxWaitMs,
    });
    this.router = new IngestRouter({
      redisEndpoint: o.redisEndpoint,
      redis: o.redis,
      keys: o.keys,
      leases: new LeaseKeeper(o.redis, o.leaseTtlMs, o.log),
      sink: new KafkaSink(this.producer, o.topic),
      log: o.log,
    });
  }

  async start(handler: BusHandler): Promise<void> {
    this.handler = handler;
    await this.ensureTopic();
    await this.producer.connect();
    this.consumer.on(this.consumer.events.GROUP_JOIN, (event) => {
      this.reassign(event.payload.memberAssignment[this.o.topic] ?? []);
    });
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.o.topic], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      // Offsets are resolved one by one as events are handed over, so that a batch cut short
      // (a rebalance) is fetched again from where it stopped rather than skipped.
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: this.o.partitionsConcurrency,
      eachBatch: (payload) => this.receive(payload),
    });
    await this.router.tick();
    this.routerTimer = setInterval(
      () => background(this.router.tick(), this.o.log, 'routing tick'),
      Math.max(100, Math.floor(this.o.leaseTtlMs / 3)),
    );
  }

  owned(): readonly string[] {
    return [...this.tracks.keys()].map(partitionName);
  }

  routing(): boolean {
    return this.router.running;
  }

  async ack(event: BusEvent): Promise<void> {
    const partition = Number(event.partition.slice('kafka-'.length));
    const track = this.tracks.get(partition);
    if (!track) return; // revoked: its next owner reads it again from the committed offset
    if (track.done(event.id)) this.scheduleCommit(partition, track);
    if (track.paused && track.outstanding < this.o.buffer / 2) {
      track.paused = false;
      this.consumer.resume([{ topic: this.o.topic, partitions: [partition] }]);
    }
  }

  async stop(): Promise<void> {
    clearInterval(this.routerTimer);
    await this.router.stop();
    // Still a member of the group: let work in progress settle and commit it, then leave.
    await Promise.all(
      [...this.tracks.keys()].map(async (partition) => {
        await this.handler?.revoked(partitionName(partition));
        await this.commit(partition);
      }),
    );
    await this.consumer.stop();
    await this.consumer.disconnect();
  }

  private async ensureTopic(): Promise<void> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      const topics = await admin.listTopics();
      if (!topics.includes(this.o.topic)) {
        await admin.createTopics({
          waitForLeaders: true,
          topics: [{ topic: this.o.topic, numPartitions: this.o.partitions }],
        });
      }
    } finally {
      await admin.disconnect();
    }
  }

  /** A rebalance: partitions no longer ours are revoked, new ones prepared. */
  private reassign(partitions: readonly number[]): void {
    for (const partition of [...this.tracks.keys()]) {
      if (!partitions.includes(partition))
        background(this.revoke(partition), this.o.log, 'revoking a partition');
    }
    for (const partition of partitions) {
      if (this.tracks.has(partition)) continue;
      this.tracks.set(partition, new OffsetTrack());
      // A partition paused under a previous assignment would stay paused.
      this.consumer.resume([{ topic: this.o.topic, partitions: [partition] }]);
      const assigned = this.handler?.assigned(partitionName(partition)) ?? Promise.resolve();
      this.ready.set(
        partition,
        assigned.catch((err: unknown) =>
          this.o.log.error({ err, partition }, 'preparing a partition failed'),
        ),
      );
    }
  }

  /** A partition taken away by a rebalance: its offsets can no longer be committed by us. */
  private async revoke(partition: number): Promise<void> {
    this.tracks.delete(partition);
    this.ready.delete(partition);
    clearTimeout(this.commitTimers.get(partition));
    this.commitTimers.delete(partition);
    await this.handler?.revoked(partitionName(partition));
  }

  private async receive(payload: EachBatchPayload): Promise<void> {
    const { batch } = payload;
    const partition = batch.partition;
    await this.ready.get(partition);
    const track = this.tracks.get(partition);
    if (!track || !this.handler) return;
    const name = partitionName(partition);
    const events: BusEvent[] = [];
    for (const message of batch.messages) {
      if (!payload.isRunning() || payload.isStale()) break;
      payload.resolveOffset(message.offset);
      if (!track.add(message.offset)) continue; // already held or handled
      const appId = message.key?.toString() ?? '';
      const body = message.value?.toString() ?? '';
      if (!appId || !body) {
        if (track.done(message.offset)) this.scheduleCommit(partition, track);
        continue;
      }
      events.push({
        partition: name,
        id: message.offset,
        position: offsetPosition(message.offset),
        appId,
        body,
      });
    }
    if (events.length > 0) this.handler.receive(events);
    if (!track.paused && track.outstanding >= this.o.buffer) {
      track.paused = true;
      this.consumer.pause([{ topic: this.o.topic, partitions: [partition] }]);
    }
  }

  private scheduleCommit(partition: number, track: OffsetTrack): void {
    if (this.commitTimers.has(partition)) return;
    const timer = setTimeout(() => {
      this.commitTimers.delete(partition);
      if (this.tracks.get(partition) === track) void this.commit(partition);
    }, COMMIT_DELAY_MS);
    this.commitTimers.set(partition, timer);
  }

  /** Commits the partition's offset below its oldest unacknowledged event, if it moved. */
  private async commit(partition: number): Promise<void> {
    const offset = this.tracks.get(partition)?.takeCommit();
    if (offset === undefined) return;
    await this.consumer
      .commitOffsets([{ topic: this.o.topic, partition, offset }])
      .catch((err: unknown) => this.o.log.warn({ err, partition }, 'offset commit failed'));
  }
}

const partitionName = (partition: number): string => `kafka-${partition}`;
