// Two sweepers on one real Redis: the sweeper lock goes to the process that has work.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  type ClusterContext,
  type SweeperOptions,
  COMMAND_FIELD,
  COMMAND_GROUP,
  LuaScripts,
  OrphanSweeper,
  RedisKeys,
} from '../src/index.js';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.disconnect());

function sweeper(keys: RedisKeys, options: SweeperOptions): OrphanSweeper {
  const ctx: ClusterContext = {
    redis,
    keys,
    scripts: new LuaScripts(redis),
    log: pino({ level: 'silent' }),
    sessionGraceMs: 60_000,
  };
  return new OrphanSweeper(ctx, options);
}

describe('the sweeper lock', () => {
  it('is not taken by a sweeper with nothing to do, so the one that found a node dead sweeps at once', async () => {
    const keys = new RedisKeys(`lock-${randomUUID().slice(0, 8)}`);
    // A node last seen a minute ago, heartbeat gone, with one command nobody read.
    const prefix = 'deadX';
    const stream = keys.commandStream(prefix);
    await redis.xgroup('CREATE', stream, COMMAND_GROUP, '0', 'MKSTREAM');
    await redis.xadd(stream, '*', COMMAND_FIELD, '{}');
    await redis.zadd(keys.nodesSeen(), Date.now() - 60_000, prefix);

    // A dispatcher's sweeper, just started: it sees the heartbeat missing but not yet for long
    // enough, and would hold the lock for its whole 5 s round.
    const patient = sweeper(keys, {
      intervalMs: 5000,
      heartbeatTtlMs: 15_000,
      orphanTimeoutMs: 120_000,
    });
    // A media node's sweeper, which has watched the node long enough.
    const quick = sweeper(keys, { intervalMs: 100, heartbeatTtlMs: 50, orphanTimeoutMs: 120_000 });
    await quick.sweep();
    await patient.sweep();
    expect(await redis.exists(keys.sweeperLock())).toBe(0);
    expect(await redis.xlen(stream)).toBe(1);

    await new Promise((resolve) => setTimeout(resolve, 60));
    await quick.sweep();
    expect(await redis.xlen(stream)).toBe(0);
    expect(await redis.pttl(keys.sweeperLock())).toBeGreaterThan(0);
    await Promise.all([patient.stop(), quick.stop()]);
  });
});
