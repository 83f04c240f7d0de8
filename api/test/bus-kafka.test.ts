import { randomBytes } from 'node:crypto';
import {
  createEventPublisher,
  createLogger,
  RedisKeys,
  type EventPublisher,
} from '@voicegw/shared';
import { KafkaEventBus, type BusEvent, type BusHandler } from '@voicegw/shared/bus';
import { Redis } from 'ioredis';
import { Partitioners } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { publishSeq, range, Receiver, sequence, TestGateway } from './dispatcher-helpers.js';

// The Kafka bus needs a broker: these tests run when KAFKA_BROKERS names one (host:port,...),
// for example a Kafka 3.9 in KRaft mode as in charts/compose.
const BROKERS = process.env.KAFKA_BROKERS ?? '';
const SKIPPED = BROKERS === '';
if (SKIPPED) {
  console.log('Kafka event bus tests SKIPPED: set KAFKA_BROKERS=host:port to run them.');
}

const log = createLogger({ name: 'kafka-test', level: 'warn' });
const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

const PARTITIONS = 4;

/**
 * The partition kafkajs' producer puts a key in: its default partitioner (murmur2, as Java's),
 * which the bus's producer uses, asked with the topic's partitions all led.
 */
function partitionOf(key: string): number {
  const partitionMetadata = Array.from({ length: PARTITIONS }, (_, partitionId) => ({
    partitionId,
    leader: 0,
    partitionErrorCode: 0,
    replicas: [0],
    isr: [0],
  }));
  return Partitioners.DefaultPartitioner()({
    topic: 'any',
    partitionMetadata,
    message: { key, value: null },
  });
}

// The apps of these tests, each alone in its partition: the commit test below reads `alpha`'s
// partition and must find no other app's unacknowledged events there. (`alpha` and `charlie`,
// the names once used, share partition 0 of 4.)
const APPS = ['alpha', 'bravo', 'delta'] as const;

class Recorder implements BusHandler {
  readonly events: BusEvent[] = [];
  autoAck: ((event: BusEvent) => Promise<void>) | undefined;
  receive(events: readonly BusEvent[]): void {
    for (const event of events) {
      this.events.push(event);
      void this.autoAck?.(event);
    }
  }
  async assigned(): Promise<void> {}
  async revoked(): Promise<void> {}
  seqOf(appId: string): number[] {
    return this.events
      .filter((e) => e.appId === appId)
      .map((e) => (JSON.parse(e.body) as { duration_ms: number }).duration_ms);
  }
}

// Runs without a broker: the choice of apps is what the commit test's count depends on.
describe('the Kafka test apps', () => {
  it('land in partitions of their own, by the partitioner the bus uses', () => {
    expect(APPS.map(partitionOf)).toEqual([0, 1, 2]);
    expect(partitionOf('charlie')).toBe(partitionOf('alpha'));
  });
});

describe.skipIf(SKIPPED)(
  `Kafka event bus${SKIPPED ? ' (skipped: KAFKA_BROKERS is not set)' : ''}`,
  () => {
    const prefix = `k${randomBytes(4).toString('hex')}`;
    const topic = `voicegw.events.test-${prefix}`;
    const keys = new RedisKeys(prefix);
    let publisher: EventPublisher;
    beforeAll(() => {
      const redis = new Redis(inject('redisUrl'));
      publisher = createEventPublisher({ REDIS_PREFIX: prefix }, redis);
      cleanups.push(async () => redis.disconnect());
    });

    const bus = (groupId: string): KafkaEventBus => {
      const connection = new Redis(inject('redisUrl'));
      const created = new KafkaEventBus({
        brokers: BROKERS.split(','),
        clientId: 'voicegw-test',
        topic,
        partitions: PARTITIONS,
        buffer: 1000,
        maxWaitMs: 20,
        partitionsConcurrency: 4,
        groupId,
        redisEndpoint: { kind: 'url', url: inject('redisUrl') },
        redis: connection,
        keys,
        leaseTtlMs: 1000,
        log,
      });
      cleanups.push(async () => {
        await created.stop().catch(() => undefined);
        connection.disconnect();
      });
      return created;
    };

    const publish = (appId: string, seq: number) => publishSeq(publisher, appId, seq);

    it('carries each app in one partition, in publish order, keyed by app id', async () => {
      const group = `g-${prefix}-a`;
      const one = bus(group);
      const recorder = new Recorder();
      recorder.autoAck = (event) => one.ack(event);
      await one.start(recorder);
      for (const seq of range(30)) for (const app of APPS) await publish(app, seq);
      await expect.poll(() => recorder.events.length, { timeout: 30_000 }).toBe(90);
      for (const app of APPS) {
        expect(recorder.seqOf(app)).toEqual(range(30));
        expect([
          ...new Set(recorder.events.filter((e) => e.appId === app).map((e) => e.partition)),
        ]).toEqual([`kafka-${partitionOf(app)}`]);
      }
    }, 60_000);

    it('commits only below the oldest unacknowledged event: a restart re-reads from there', async () => {
      const group = `g-${prefix}-b`;
      const first = bus(group);
      const before = new Recorder();
      await first.start(before);
      await expect.poll(() => before.seqOf('alpha').length, { timeout: 30_000 }).toBe(30);
      // Acknowledge alpha's first ten; leave the rest.
      for (const event of before.events.filter((e) => e.appId === 'alpha').slice(0, 10)) {
        await first.ack(event);
      }
      await new Promise((resolve) => setTimeout(resolve, 500)); // the commit is batched
      await first.stop();

      const second = bus(group);
      const after = new Recorder();
      await second.start(after);
      await expect.poll(() => after.seqOf('alpha').length, { timeout: 30_000 }).toBe(20);
      expect(after.seqOf('alpha')).toEqual(range(20, 11));
    }, 60_000);

    it('a dispatcher on the Kafka bus delivers webhooks in order', async () => {
      const gateway = new TestGateway();
      const receiver = await new Receiver().start();
      cleanups.push(async () => {
        await gateway.close();
        await receiver.close();
      });
      await gateway.createApp({ app_id: 'kafka-app', webhook_url: receiver.url('kafka-app') });
      await gateway.dispatcher({
        EVENT_BUS: 'kafka',
        KAFKA_BROKERS: BROKERS,
        KAFKA_TOPIC: `voicegw.events.test-${gateway.prefix}`,
      });
      for (const seq of range(50)) await gateway.publishSeq('kafka-app', seq);
      await receiver.until(() => receiver.of('kafka-app').length >= 50, 30_000);
      expect(sequence(receiver.of('kafka-app'))).toEqual(range(50));
    }, 60_000);
  },
);
