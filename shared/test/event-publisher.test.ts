import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  EVENT_FIELDS,
  execAll,
  RedisKeys,
  RedisStreamPublisher,
  type UntilWritten,
} from '../src/index.js';

const keys = new RedisKeys(`publisher-${randomUUID().slice(0, 8)}`);
let redis: Redis;

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
});
afterAll(() => redis.disconnect());

/** The ingest stream's entries as [app, event name, event_id]. */
async function ingested(): Promise<[string, string, string][]> {
  const entries = await redis.xrange(keys.events(), '-', '+');
  return entries.map(([, fields]) => {
    const app = fields[fields.indexOf(EVENT_FIELDS.app) + 1] ?? '';
    const body = JSON.parse(fields[fields.indexOf(EVENT_FIELDS.body) + 1] ?? '{}') as {
      event: string;
      event_id: string;
    };
    return [app, body.event, body.event_id];
  });
}

describe('RedisStreamPublisher.publishInOrder', () => {
  it('appends the events back to back, in the order given, each with its own event_id', async () => {
    const publisher = new RedisStreamPublisher(redis, keys);
    await publisher.publishInOrder('app_a', [
      { event: 'call.answered', session_uuid: 'abcde-1', command_uid: 'u1', success: true },
      {
        event: 'command.result',
        session_uuid: 'abcde-1',
        operation_id: randomUUID(),
        command: 'answer',
        command_uid: 'u1',
        success: true,
      },
    ]);
    const entries = await ingested();
    expect(entries.map(([app, name]) => [app, name])).toEqual([
      ['app_a', 'call.answered'],
      ['app_a', 'command.result'],
    ]);
    expect(new Set(entries.map(([, , id]) => id)).size).toBe(2);
  });

  it('hands the events to its retry as one write, so a retry cannot split or reorder them', async () => {
    await redis.del(keys.events());
    const writes: string[] = [];
    const counted: UntilWritten = (what, write) => {
      writes.push(what);
      return write();
    };
    const publisher = new RedisStreamPublisher(redis, keys, counted);
    await publisher.publishInOrder('app_b', [
      { event: 'call.new', session_uuid: 'abcde-2', caller_id: '1', did: '2' },
      { event: 'call.answered', session_uuid: 'abcde-2' },
    ]);
    expect(writes).toEqual(['call.new, call.answered']);
    expect((await ingested()).map(([, name]) => name)).toEqual(['call.new', 'call.answered']);
  });
});

describe('execAll', () => {
  it('fails when one command of the transaction was refused, instead of resolving', async () => {
    const key = `publisher-test:${randomUUID()}`;
    await redis.set(key, 'a string');
    await expect(execAll(redis.multi().incr(`${key}:n`).lpush(key, 'x'))).rejects.toThrow(
      /WRONGTYPE/,
    );
    await expect(execAll(redis.multi().incr(`${key}:n`).get(key))).resolves.toEqual([
      2,
      'a string',
    ]);
  });
});
