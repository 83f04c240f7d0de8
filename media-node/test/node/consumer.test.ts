// The command consumer on a real Redis: what it claims from a dead consumer, and when it expires.
import { randomUUID } from 'node:crypto';
import {
  COMMAND_FIELD,
  createLogger,
  encodeCommand,
  type CommandMessage,
  type SessionCommandMessage,
} from '@voicegw/shared';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, inject, it } from 'vitest';
import { CommandConsumer } from '../../src/stream/consumer.js';

const GROUP = 'media-node';
const redis = new Redis(inject('redisUrl'));
let consumer: CommandConsumer | undefined;
const streams: string[] = [];

afterEach(async () => {
  await consumer?.stop();
  consumer = undefined;
});
afterAll(async () => {
  await redis.del(...streams);
  redis.disconnect();
});

function command(uid: string, issuedAt = Date.now()): SessionCommandMessage {
  return {
    kind: 'session',
    command: 'playback/stop',
    session_id: 'abcde-00000000-0000-4000-8000-000000000000',
    app_id: 'app',
    operation_id: randomUUID(),
    command_uid: uid,
    args: {},
    issued_at: issuedAt,
  };
}

/** A stream whose entries a consumer that then died had read: all pending, none acknowledged. */
async function leftByDeadConsumer(messages: CommandMessage[]): Promise<string> {
  const stream = `consumer-test:${randomUUID()}`;
  streams.push(stream);
  await redis.xgroup('CREATE', stream, GROUP, '0', 'MKSTREAM');
  for (const m of messages) await redis.xadd(stream, '*', COMMAND_FIELD, encodeCommand(m));
  await redis.xreadgroup('GROUP', GROUP, 'dead', 'STREAMS', stream, '>');
  return stream;
}

interface Recorder {
  readonly executed: string[];
  readonly expired: string[];
  maxRunning: number;
}

async function consume(
  stream: string,
  concurrency: number,
  deadlineMs = 60_000,
): Promise<Recorder> {
  const seen: Recorder = { executed: [], expired: [], maxRunning: 0 };
  let running = 0;
  consumer = new CommandConsumer({
    redis,
    blocking: new Redis(inject('redisUrl')),
    stream,
    group: GROUP,
    consumer: 'live',
    blockMs: 50,
    batch: 100,
    concurrency,
    claimIdleMs: 1,
    claimIntervalMs: 50,
    deadlineMs,
    log: createLogger({ name: 'consumer-test', level: 'silent' }),
    async execute(message) {
      running++;
      seen.maxRunning = Math.max(seen.maxRunning, running);
      // Work that takes a while, so that what runs at once is what was dispatched at once.
      await new Promise((resolve) => setTimeout(resolve, 20));
      running--;
      if (message.kind === 'session') seen.executed.push(message.command_uid);
    },
    async expire(message) {
      if (message.kind === 'session') seen.expired.push(message.command_uid);
    },
  });
  await consumer.start();
  return seen;
}

describe('the command consumer', () => {
  it('claims what a dead consumer left pending, and reads the rest, within its concurrency', async () => {
    const uids = Array.from({ length: 24 }, (_, i) => `c${i}`);
    const stream = await leftByDeadConsumer(uids.slice(0, 12).map((uid) => command(uid)));
    for (const uid of uids.slice(12))
      await redis.xadd(stream, '*', COMMAND_FIELD, encodeCommand(command(uid)));
    const seen = await consume(stream, 3);
    await expect.poll(() => seen.executed.length).toBe(uids.length);
    expect([...seen.executed].sort()).toEqual([...uids].sort());
    expect(seen.maxRunning).toBe(3);
    await expect.poll(async () => Number((await redis.xpending(stream, GROUP))[0])).toBe(0);
  });

  it('answers entries past their deadline as expired instead of executing them', async () => {
    const stream = await leftByDeadConsumer([
      command('stale', Date.now() - 10_000),
      command('fresh'),
    ]);
    await redis.xadd(stream, '*', COMMAND_FIELD, encodeCommand(command('unread-stale', 1)));
    const seen = await consume(stream, 10, 5000);
    await expect.poll(() => seen.executed.length + seen.expired.length).toBe(3);
    expect(seen.executed).toEqual(['fresh']);
    expect([...seen.expired].sort()).toEqual(['stale', 'unread-stale']);
  });
});
