import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaseKeeper } from '../src/bus/lease.js';
import { captureLogger, spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { createRedis } from '../src/index.js';

// A Redis of its own, stopped by the test.
let server: SpawnedRedis;
const clients: ReturnType<typeof createRedis>[] = [];

beforeAll(async () => {
  server = await spawnRedis({ appendOnly: false });
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await server.stop();
});

const keeper = (ttlMs = 5000) => {
  const redis = createRedis(
    { kind: 'url', url: server.url },
    { name: 'lease-test', commandTimeoutMs: 500 },
  );
  redis.on('error', () => undefined);
  clients.push(redis);
  const { log, lines } = captureLogger();
  return { leases: new LeaseKeeper(redis, ttlMs, log), redis, lines };
};

describe('LeaseKeeper', () => {
  it('keeps every lease past its TTL, and loses at once one that another holder took', async () => {
    const { leases, redis } = keeper(600);
    const resources = [1, 2, 3].map((i) => `lease-${i}-${randomUUID()}`);
    const lost: string[] = [];
    const held = await Promise.all(
      resources.map((resource) => leases.tryAcquire(resource, () => lost.push(resource))),
    );
    // Rounds run every third of the TTL, each extending all three in one script run.
    let rounds = 0;
    const stopCounting = leases.onRound(() => rounds++);
    await expect.poll(() => rounds, { timeout: 5000 }).toBeGreaterThanOrEqual(6);
    expect(held.map((lease) => lease?.valid())).toEqual([true, true, true]);
    for (const resource of resources) expect(await redis.pttl(resource)).toBeGreaterThan(0);

    // Someone else's now: lost on the next round, not at its expiry; the others stay held.
    await redis.set(resources[0]!, 'another-holder', 'PX', 10_000);
    await expect.poll(() => lost).toEqual([resources[0]]);
    expect(held.map((lease) => lease?.valid())).toEqual([false, true, true]);
    stopCounting();
    for (const lease of held) await lease?.release();
    expect(await redis.exists(...resources.slice(1))).toBe(0);
    expect(await redis.get(resources[0]!)).toBe('another-holder');
  });

  it('logs a Redis error as a warning with the error, and contention not at all', async () => {
    const holder = keeper();
    const rival = keeper();
    const resource = `lease-${randomUUID()}`;
    const held = await holder.leases.tryAcquire(resource, () => undefined);
    expect(held?.valid()).toBe(true);

    // Contention: no lease, and nothing to warn about.
    expect(await rival.leases.tryAcquire(resource, () => undefined)).toBeUndefined();
    expect(rival.lines.filter((l) => l.level >= 40)).toEqual([]);

    await held?.release();
    await server.stop();
    expect(await rival.leases.tryAcquire(`other-${resource}`, () => undefined)).toBeUndefined();
    const warnings = rival.lines.filter((l) => l.level >= 40);
    expect(warnings).toEqual([
      expect.objectContaining({
        level: 40,
        msg: 'lease operation failed: Redis error, not contention',
        errors: 1,
        err: expect.objectContaining({ message: expect.any(String) }),
      }),
    ]);
    expect(warnings[0]?.err?.message).not.toMatch(/requested resources/);
  });
});
