import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lua, LuaScripts, RedisKeys, ScriptCode } from '../src/index.js';

/** How the scripts travel: EVALSHA, EVAL after NOSCRIPT, arguments and replies byte-exact. */
const keys = new RedisKeys(`scripts-${randomUUID().slice(0, 8)}`);
let redis: Redis;
let scripts: LuaScripts;

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
  scripts = new LuaScripts(redis);
});
afterAll(() => redis.disconnect());

/** A session hash updateSession-1.lua will write to (it refuses one without app_id). */
async function liveSession(): Promise<string> {
  const key = keys.session(`abcde-${randomUUID()}`);
  await redis.hset(key, 'app_id', 'app_a');
  return key;
}

async function scriptCalls(): Promise<{ eval: number; evalsha: number }> {
  const stats = await redis.info('commandstats');
  const calls = (name: string): number =>
    Number(new RegExp(`^cmdstat_${name}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  return { eval: calls('eval'), evalsha: calls('evalsha') };
}

describe('LuaScripts', () => {
  it('runs a cached script by its SHA, and loads it with EVAL when Redis answers NOSCRIPT', async () => {
    const key = await liveSession();
    expect(
      await scripts.run(lua.updateSession({ session: key }, { fields: ['state', 'one'] })),
    ).toBe(1);

    await redis.script('FLUSH');
    const before = await scriptCalls();
    expect(
      await scripts.run(lua.updateSession({ session: key }, { fields: ['state', 'two'] })),
    ).toBe(1);
    expect(
      await scripts.run(lua.updateSession({ session: key }, { fields: ['state', 'three'] })),
    ).toBe(1);
    const after = await scriptCalls();
    // The first run after the flush: EVALSHA (NOSCRIPT), then EVAL; the second: EVALSHA alone.
    expect(after.eval - before.eval).toBe(1);
    expect(after.evalsha - before.evalsha).toBe(2);
    expect(await redis.hget(key, 'state')).toBe('three');
  });

  it('sends arguments byte for byte, multi-byte UTF-8, numbers and empty strings included', async () => {
    const key = await liveSession();
    const hebrew = 'שלום עולם — ✓ 🎉';
    await scripts.run(
      lua.updateSession({ session: key }, { fields: ['text', hebrew, 'count', 42, 'empty', ''] }),
    );
    expect(await redis.hgetall(key)).toEqual({
      app_id: 'app_a',
      text: hebrew,
      count: '42',
      empty: '',
    });
  });

  it('answers integers as numbers (arrays with nil: see script-batcher.test.ts)', async () => {
    const window = keys.rateWindow('ip', `app_a:${randomUUID()}`, 1);
    const other = keys.rateWindow('app', `app_a:${randomUUID()}`, 1);
    const windows = { ipWindow: window, appWindow: other };
    const limits = { ipLimit: 1, ipWindowMs: 60_000, appLimit: 0, appWindowMs: 60_000 };
    expect(await scripts.run(lua.rateLimit(windows, limits))).toBe(0);
    const wait = await scripts.run(lua.rateLimit(windows, limits));
    expect(typeof wait).toBe('number');
    expect(wait).toBeGreaterThan(59_000);
    expect(
      await scripts.run(
        lua.updateSession({ session: keys.session('abcde-gone') }, { fields: ['a', 'b'] }),
      ),
    ).toBe(0);
  });

  it('rejects a call with the wrong number of keys, and a script error as Redis words it', async () => {
    // A run the builder did not make (the builder gives every run its script's keys).
    const keyless = { name: 'updateSession', keys: [], args: ['a', 'b'] } as const;
    await expect(scripts.run(keyless)).rejects.toThrow('script updateSession takes 1 keys, got 0');
    const key = await liveSession();
    // HSET with an odd number of arguments fails inside the script.
    await expect(
      scripts.run(lua.updateSession({ session: key }, { fields: ['lonely'] })),
    ).rejects.toThrow(/wrong number of args/i);
  });
});

describe('admitInbound-5.lua', () => {
  const did = '0731234567';
  const admit = (sessionId: string, appId: string, routed: '0' | '1') => {
    const fields = { app_id: appId, created_at: '1700000000000', did };
    return scripts.run(
      lua.admitInbound(
        {
          session: keys.session(sessionId),
          didRoutes: keys.didRoutes(),
          liveSessions: keys.appSessions(appId, 'live', 'inbound'),
          nodeSessions: keys.nodeSessions('abcde'),
          events: keys.events(),
        },
        {
          did,
          appId,
          routed,
          createdAt: fields.created_at,
          sessionId,
          fieldCount: 6,
          fieldsThenEvents: [
            ...Object.entries(fields).flat(),
            ...['a', appId, 'b', `{"event":"call.new","session_uuid":"${sessionId}"}`],
          ],
        },
      ),
    );
  };
  /** What an admission leaves behind: the hash, the two index entries, the events. */
  const traces = async (sessionId: string, appId: string) => ({
    hash: await redis.hgetall(keys.session(sessionId)),
    live: await redis.zscore(keys.appSessions(appId, 'live', 'inbound'), sessionId),
    node: await redis.sismember(keys.nodeSessions('abcde'), sessionId),
    events: (await redis.xrange(keys.events(), '-', '+'))
      .map(([, fields]) => fields[3] ?? '')
      .filter((body) => body.includes(sessionId)),
  });

  it('admits a call whose DID routes to the app: hash, indexes and call.new together', async () => {
    await redis.hset(keys.didRoutes(), did, 'app_a');
    const id = `abcde-${randomUUID()}`;
    expect(await admit(id, 'app_a', '1')).toBe(0);
    expect(await traces(id, 'app_a')).toEqual({
      hash: { app_id: 'app_a', created_at: '1700000000000', did },
      live: '1700000000000',
      node: 1,
      events: [`{"event":"call.new","session_uuid":"${id}"}`],
    });
  });

  it('answers the app the DID routes to now ("" for none) and writes nothing', async () => {
    await redis.hset(keys.didRoutes(), did, 'app_b');
    const moved = `abcde-${randomUUID()}`;
    expect(await admit(moved, 'app_a', '1')).toEqual([ScriptCode.DID_ROUTE_CHANGED, 'app_b']);
    await redis.hdel(keys.didRoutes(), did);
    const unrouted = `abcde-${randomUUID()}`;
    expect(await admit(unrouted, 'app_a', '1')).toEqual([ScriptCode.DID_ROUTE_CHANGED, '']);
    for (const id of [moved, unrouted]) {
      expect(await traces(id, 'app_a')).toEqual({ hash: {}, live: null, node: 0, events: [] });
    }
    // The dialplan named the app: the DID map is not asked.
    const named = `abcde-${randomUUID()}`;
    expect(await admit(named, 'app_a', '0')).toBe(0);
  });

  it('refuses a session reported over already, and writes nothing', async () => {
    const id = `abcde-${randomUUID()}`;
    await redis.hset(keys.session(id), 'ended_at', '1700000000001');
    expect(await admit(id, 'app_a', '0')).toBe(ScriptCode.SESSION_ENDED);
    expect(await traces(id, 'app_a')).toEqual({
      hash: { ended_at: '1700000000001' },
      live: null,
      node: 0,
      events: [],
    });
  });
});

describe('routeEvents-1.lua', () => {
  const cursor = keys.eventRouterCursor();
  const fields = { appField: 'app', bodyField: 'e', sourceField: 'src' };
  const shard = (n: number): string => keys.eventShard(n);
  const step = (from: string, to: string, events: string[]) =>
    scripts.run(lua.routeEvents({ cursor }, { from, to, ...fields, events }));

  it('appends a batch to its shard streams in order and moves the cursor with it', async () => {
    await redis.del(cursor, shard(0), shard(1));
    const events = [shard(0), 'a', '{"n":1}', '1-1', shard(1), 'b', '{"n":2}', '1-2'];
    events.push(shard(0), 'a', '{"n":3}', '1-3');
    expect(await step('0-0', '1-3', events)).toBe(0);

    expect(await redis.get(cursor)).toBe('1-3');
    const zero = await redis.xrange(shard(0), '-', '+');
    expect(zero.map(([, f]) => f)).toEqual([
      ['app', 'a', 'e', '{"n":1}', 'src', '1-1'],
      ['app', 'a', 'e', '{"n":3}', 'src', '1-3'],
    ]);
    expect((await redis.xrange(shard(1), '-', '+')).map(([, f]) => f)).toEqual([
      ['app', 'b', 'e', '{"n":2}', 'src', '1-2'],
    ]);
    // A sink that stored its events itself (Kafka) passes none: the cursor alone moves.
    expect(await step('1-3', '1-9', [])).toBe(0);
    expect(await redis.get(cursor)).toBe('1-9');
  });

  it('refuses a router whose cursor moved under it, and writes nothing', async () => {
    await redis.del(cursor, shard(2));
    await redis.set(cursor, '5-0');
    expect(await step('4-0', '6-0', [shard(2), 'a', '{}', '6-0'])).toBe(
      ScriptCode.ROUTER_DISPLACED,
    );
    expect(await redis.get(cursor)).toBe('5-0');
    expect(await redis.exists(shard(2))).toBe(0);
  });
});
