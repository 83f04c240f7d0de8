// A primary run with `min-replicas-to-write 1` (docs/operations.md, Redis requirements) refuses
// writes with NOREPLICAS while it has no replica: what a process owes must wait for one, not be
// dropped as a refusal.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureLogger, spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { createRedis, isRedisUnavailable, RedisKeys, untilWritten } from '../src/index.js';

let primary: SpawnedRedis;
let replica: SpawnedRedis | undefined;
let redis: ReturnType<typeof createRedis>;

beforeAll(async () => {
  primary = await spawnRedis({ appendOnly: false });
  redis = createRedis({ kind: 'url', url: primary.url }, { name: 'no-replicas-test' });
  await redis.config('SET', 'min-replicas-to-write', '1');
});
afterAll(async () => {
  redis.disconnect();
  await replica?.stop();
  await primary.stop();
});

describe('a primary without the replicas min-replicas-to-write asks for', () => {
  it('refuses writes with NOREPLICAS, scripts included, which counts as Redis unavailable', async () => {
    const refusals = await Promise.all([
      redis.xadd(`nr:${randomUUID()}`, '*', 'a', '1').catch((err: unknown) => err),
      redis.eval("return redis.call('XADD', KEYS[1], '*', 'a', '1')", 1, 'nr').catch((e) => e),
    ]);
    expect(refusals.map((err) => (err as Error).message.split(' ')[0])).toEqual([
      'NOREPLICAS',
      'NOREPLICAS',
    ]);
    expect(refusals.map(isRedisUnavailable)).toEqual([true, true]);
  });

  it('holds a write owed (untilWritten) until a replica is in sync, then makes it once', async () => {
    const { log, lines } = captureLogger();
    const stream = new RedisKeys(`nr${randomUUID().slice(0, 8)}`).events();
    const write = untilWritten({ log, signal: new AbortController().signal, maxDelayMs: 200 })(
      'event',
      () => redis.xadd(stream, '*', 'a', '1'),
    );
    await expect
      .poll(() => lines.map((l) => l.msg))
      .toContain('redis unavailable: retrying the write');
    replica = await spawnRedis({ appendOnly: false, replicaOf: primary.port });
    await expect(write).resolves.toMatch(/^\d+-\d+$/);
    expect(await redis.xlen(stream)).toBe(1);
    expect(lines.map((l) => l.msg)).toContain('redis write went through');
  });
});
