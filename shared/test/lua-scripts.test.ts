import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { lua, LuaScripts, RedisKeys } from '../src/index.js';

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
