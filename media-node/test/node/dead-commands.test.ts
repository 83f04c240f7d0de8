// failDeadCommands-3.lua on a real Redis: exactly once without the sweeper lock, and hands off
// while the node beats.
import { randomUUID } from 'node:crypto';
import {
  COMMAND_FIELD,
  COMMAND_GROUP,
  lua,
  LuaScripts,
  RedisKeys,
  ScriptCode,
} from '@voicegw/shared';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';

const keys = new RedisKeys(`dead-${randomUUID().slice(0, 8)}`);
const connections = [new Redis(inject('redisUrl')), new Redis(inject('redisUrl'))] as const;
const [redis] = connections;
afterAll(() => connections.forEach((c) => c.disconnect()));

/** A dead node's stream: `pending` entries read by its consumer, `unread` never read. */
async function deadNodeStream(prefix: string, pending: number, unread: number): Promise<string[]> {
  const stream = keys.commandStream(prefix);
  await redis.xgroup('CREATE', stream, COMMAND_GROUP, '0', 'MKSTREAM');
  const ids: string[] = [];
  for (let i = 0; i < pending + unread; i++) {
    if (i === pending)
      await redis.xreadgroup('GROUP', COMMAND_GROUP, 'dead', 'STREAMS', stream, '>');
    ids.push((await redis.xadd(stream, '*', COMMAND_FIELD, `{"n":${i}}`)) ?? '');
  }
  return ids;
}

/** One sweeper's call: every id with a result event of its own. */
function answer(connection: Redis, prefix: string, ids: string[]): Promise<unknown> {
  const entries: string[] = [];
  for (const id of ids) entries.push(id, 'app', 'app_a', 'e', JSON.stringify({ id }));
  return new LuaScripts(connection).run(
    lua.failDeadCommands(
      {
        commandStream: keys.commandStream(prefix),
        heartbeat: keys.nodeHeartbeat(prefix),
        events: keys.events(),
      },
      { group: COMMAND_GROUP, consumer: 'orphan-sweeper', entries },
    ),
  );
}

describe('failDeadCommands-3.lua', () => {
  it('two sweepers at once answer each open entry exactly once, unread and unacknowledged alike', async () => {
    const prefix = 'deadA';
    const ids = await deadNodeStream(prefix, 3, 4);
    const before = await redis.xlen(keys.events());
    const answered = await Promise.all(connections.map((c) => answer(c, prefix, ids)));
    expect(answered.map(Number).reduce((a, b) => a + b)).toBe(ids.length);
    const events = await redis.xrange(keys.events(), '-', '+');
    expect(events.slice(before).map(([, fields]) => JSON.parse(fields[3] ?? '').id)).toEqual(ids);
    expect(Number((await redis.xpending(keys.commandStream(prefix), COMMAND_GROUP))[0])).toBe(0);
    expect(await redis.xlen(keys.commandStream(prefix))).toBe(0);
    // The node restarted later reads nothing: every entry was delivered and acknowledged.
    const next = await redis.xreadgroup(
      'GROUP',
      COMMAND_GROUP,
      'restarted',
      'STREAMS',
      keys.commandStream(prefix),
      '>',
    );
    expect(next).toBeNull();
  });

  it('does nothing while the node beats: its own consumer answers', async () => {
    const prefix = 'deadB';
    const ids = await deadNodeStream(prefix, 1, 1);
    await redis.set(keys.nodeHeartbeat(prefix), '1', 'PX', 10_000);
    const before = await redis.xlen(keys.events());
    expect(await answer(redis, prefix, ids)).toBe(ScriptCode.NODE_ALIVE);
    expect(await redis.xlen(keys.events())).toBe(before);
    expect(Number((await redis.xpending(keys.commandStream(prefix), COMMAND_GROUP))[0])).toBe(1);
  });
});

/** The node's own command.result for one entry (answerCommand-2.lua): 1 published, 0 not. */
function nodeResult(prefix: string, id: string): Promise<unknown> {
  return new LuaScripts(redis).run(
    lua.answerCommand(
      { commandStream: keys.commandStream(prefix), events: keys.events() },
      {
        group: COMMAND_GROUP,
        entryId: id,
        events: ['app', 'app_a', 'e', JSON.stringify({ id, late: true })],
      },
    ),
  );
}

describe('answerCommand-2.lua', () => {
  it('publishes the node’s result and acknowledges the entry while it is pending', async () => {
    const prefix = 'liveC';
    const [id = ''] = await deadNodeStream(prefix, 1, 1);
    expect(await nodeResult(prefix, id)).toBe(1);
    expect(Number((await redis.xpending(keys.commandStream(prefix), COMMAND_GROUP))[0])).toBe(0);
  });

  it('publishes no late result for a command a sweeper answered as lost', async () => {
    // The node was cut off from Redis past its heartbeat's TTL, still running the command.
    const prefix = 'lateD';
    const ids = await deadNodeStream(prefix, 1, 1);
    expect(await answer(redis, prefix, ids)).toBe(2);
    const before = await redis.xlen(keys.events());
    expect(await nodeResult(prefix, ids[0] ?? '')).toBe(0);
    expect(await redis.xlen(keys.events())).toBe(before);
  });
});
