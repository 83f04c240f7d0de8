import { randomBytes } from 'node:crypto';
import {
  createEventPublisher,
  createLogger,
  RedisKeys,
  type EventPublisher,
} from '@voicegw/shared';
import { RedisEventBus, shardOf, type BusEvent, type BusHandler } from '@voicegw/shared/bus';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { publishSeq } from './dispatcher-helpers.js';

const log = createLogger({ name: 'bus-test', level: 'silent' });
const SHARDS = 4;

/** A handler that records what it is given and acknowledges only when told. */
class Recorder implements BusHandler {
  readonly events: BusEvent[] = [];
  readonly partitions = new Set<string>();
  autoAck: ((event: BusEvent) => Promise<void>) | undefined;

  receive(events: readonly BusEvent[]): void {
    for (const event of events) {
      this.events.push(event);
      void this.autoAck?.(event);
    }
  }
  async assigned(partition: string): Promise<void> {
    this.partitions.add(partition);
  }
  async revoked(partition: string): Promise<void> {
    this.partitions.delete(partition);
  }
  seqOf(appId: string): number[] {
    return this.events
      .filter((e) => e.appId === appId)
      .map((e) => (JSON.parse(e.body) as { duration_ms: number }).duration_ms);
  }
}

let redis: Redis;
let keys: RedisKeys;
let publisher: EventPublisher;
const buses: RedisEventBus[] = [];
const connections: Redis[] = [];

const setUp = (): void => {
  const prefix = `b${randomBytes(4).toString('hex')}`;
  redis = new Redis(inject('redisUrl'));
  keys = new RedisKeys(prefix);
  publisher = createEventPublisher({ REDIS_PREFIX: prefix }, redis);
};

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.stop()));
  for (const connection of connections.splice(0)) connection.disconnect();
  redis.disconnect();
});

function bus(
  options: Partial<{ shards: number; buffer: number; blockMs: number }> = {},
): RedisEventBus {
  const connection = new Redis(inject('redisUrl'));
  connections.push(connection);
  const created = new RedisEventBus({
    redisEndpoint: { kind: 'url', url: inject('redisUrl') },
    redis: connection,
    keys,
    shards: options.shards ?? SHARDS,
    leaseTtlMs: 1000,
    buffer: options.buffer ?? 1000,
    dispatcherId: `test-${randomBytes(3).toString('hex')}`,
    log,
    blockMs: options.blockMs ?? 100,
    maintenanceIntervalMs: 200,
  });
  buses.push(created);
  return created;
}

/** Starts `target` with a new Recorder; with `autoAck`, the recorder acknowledges what it gets. */
async function startRecording(target: RedisEventBus, autoAck = false): Promise<Recorder> {
  const recorder = new Recorder();
  if (autoAck) recorder.autoAck = (event) => target.ack(event);
  await target.start(recorder);
  return recorder;
}

const publish = (appId: string, seq: number) => publishSeq(publisher, appId, seq);

const seqs = (n: number): number[] => Array.from({ length: n }, (_, i) => i + 1);

/** An app id in each shard, in shard order. */
function oneAppPerShard(): string[] {
  const apps = new Map<number, string>();
  for (let i = 0; apps.size < SHARDS; i++) {
    const app = `app-${i}`;
    if (!apps.has(shardOf(app, SHARDS))) apps.set(shardOf(app, SHARDS), app);
  }
  return [...apps.entries()].sort(([x], [y]) => x - y).map(([, app]) => app);
}

/** Publishes events 1 to `count` of `appId` and waits until `recorder` (empty so far) has them. */
async function publishAndAwait(recorder: Recorder, appId: string, count: number) {
  for (const seq of seqs(count)) await publish(appId, seq);
  await expect.poll(() => recorder.events.length).toBe(count);
}

describe('Redis event bus', () => {
  it('routes the ingest stream onto shard streams: each app in its shard, in publish order', async () => {
    setUp();
    const one = bus();
    const recorder = await startRecording(one, true);
    const apps = ['alpha', 'bravo', 'charlie', 'delta', 'echo'];
    for (const seq of seqs(50)) for (const app of apps) await publish(app, seq);

    await expect.poll(() => recorder.events.length).toBe(250);
    for (const app of apps) {
      expect(recorder.seqOf(app)).toEqual(seqs(50));
      const partitions = new Set(
        recorder.events.filter((e) => e.appId === app).map((e) => e.partition),
      );
      expect(partitions).toEqual(new Set([`shard-${shardOf(app, SHARDS)}`]));
    }
    expect(one.owned()).toHaveLength(SHARDS);
    // Forwarded entries leave the ingest stream; acknowledged ones leave the shard streams.
    await expect.poll(() => redis.xlen(keys.events())).toBeLessThanOrEqual(1);
    await expect
      .poll(async () => {
        let left = 0;
        for (let shard = 0; shard < SHARDS; shard++)
          left += await redis.xlen(keys.eventShard(shard));
        return left;
      })
      .toBeLessThanOrEqual(SHARDS);
  });

  it('trims a shard stream only below what has been acknowledged', async () => {
    setUp();
    const one = bus();
    const recorder = await startRecording(one);
    await publishAndAwait(recorder, 'alpha', 10);
    // Acknowledge all but the fourth: the stream keeps it and everything after it.
    for (const [i, event] of recorder.events.entries()) if (i !== 3) await one.ack(event);
    const stream = keys.eventShard(shardOf('alpha', SHARDS));
    await expect.poll(() => redis.xlen(stream)).toBe(7);
    await one.ack(recorder.events[3]!);
    await expect.poll(() => redis.xlen(stream)).toBeLessThanOrEqual(1);
  });

  it("hands a stopped holder's unacknowledged events to the next, first and in order", async () => {
    setUp();
    const first = bus();
    const before = await startRecording(first);
    await publishAndAwait(before, 'alpha', 20);
    // The first twelve are done, the rest never acknowledged.
    for (const event of before.events.slice(0, 12)) await first.ack(event);
    await first.stop();

    const second = bus();
    const after = await startRecording(second, true);
    for (const seq of [21, 22]) await publish('alpha', seq);
    await expect.poll(() => after.events.length).toBe(10);
    expect(after.seqOf('alpha')).toEqual([13, 14, 15, 16, 17, 18, 19, 20, 21, 22]);
    expect(after.events.slice(0, 8).map((e) => e.id)).toEqual(
      before.events.slice(12).map((e) => e.id),
    );
  });

  it("shares the shards and the router between live buses, and takes a stopped one's over", async () => {
    setUp();
    const a = bus();
    const b = bus();
    await startRecording(a);
    await startRecording(b);
    await expect.poll(() => [a.owned().length, b.owned().length]).toEqual([2, 2]);
    expect(new Set([...a.owned(), ...b.owned()]).size).toBe(SHARDS);
    // One router at a time.
    expect([a.routing(), b.routing()].filter(Boolean)).toHaveLength(1);
    const [first, second] = a.routing() ? [a, b] : [b, a];
    await first.stop();
    await expect.poll(() => second.owned().length, { timeout: 5000 }).toBe(SHARDS);
    await expect.poll(() => second.routing(), { timeout: 5000 }).toBe(true);
  });

  it('pauses reading a shard whose unacknowledged events reach the buffer', async () => {
    setUp();
    const one = bus({ buffer: 10 });
    const recorder = await startRecording(one);
    for (const seq of seqs(40)) await publish('alpha', seq);
    await expect.poll(() => recorder.events.length).toBeGreaterThanOrEqual(10);
    // It may overshoot by less than one read (10 entries here), no more.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const held = recorder.events.length;
    expect(held).toBeLessThan(20);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(recorder.events).toHaveLength(held);
    for (const event of recorder.events.slice()) await one.ack(event);
    await expect.poll(() => recorder.events.length).toBeGreaterThan(held);
    expect(recorder.seqOf('alpha')).toEqual(seqs(recorder.events.length));
  });

  it('reads its shards as they change while a read blocks: handed back, then taken over', async () => {
    setUp();
    // Reads that would block for a minute: each change below must cut them short.
    const a = bus({ blockMs: 60_000 });
    const fromA = await startRecording(a, true);
    const b = bus({ blockMs: 60_000 });
    const fromB = await startRecording(b, true);
    // a held every shard: it hands two back while its read blocks.
    await expect.poll(() => [a.owned().length, b.owned().length]).toEqual([2, 2]);
    const apps = oneAppPerShard();
    for (const app of apps) await publish(app, 1);
    await expect.poll(() => fromA.events.length + fromB.events.length).toBe(SHARDS);
    // b goes: a takes its shards over while its read of the other two blocks, and reads them.
    await b.stop();
    await expect.poll(() => a.owned().length, { timeout: 5000 }).toBe(SHARDS);
    for (const app of apps) await publish(app, 2);
    await expect.poll(() => apps.every((app) => fromA.seqOf(app).includes(2))).toBe(true);
  });

  it('reads a paused shard again as soon as its buffer frees, while a read of the others blocks', async () => {
    setUp();
    const one = bus({ buffer: 10, blockMs: 60_000 });
    const recorder = await startRecording(one);
    for (const seq of seqs(40)) await publish('alpha', seq);
    await expect.poll(() => recorder.events.length).toBeGreaterThanOrEqual(10);
    const held = recorder.events.length;
    for (const event of recorder.events.slice()) await one.ack(event);
    await expect.poll(() => recorder.events.length).toBeGreaterThan(held);
  });

  it('refuses a shard count other than the one the gateway was started with', async () => {
    setUp();
    await bus({ shards: 4 }).start(new Recorder());
    await expect(bus({ shards: 8 }).start(new Recorder())).rejects.toThrow(
      /^EVENT_SHARDS is 8 but this gateway's event bus has 4 shards/,
    );
  });
});
