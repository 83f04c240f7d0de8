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

/** `commandTimeoutMs` 0: a command waits for its reply however long that takes. */
const keeper = (ttlMs = 5000, commandTimeoutMs = 500) => {
  const redis = createRedis(
    { kind: 'url', url: server.url },
    { name: 'lease-test', ...(commandTimeoutMs ? { commandTimeoutMs } : {}) },
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

  it('loses a lease whose extension never answers on the first round after it ran out', async () => {
    const { leases } = keeper(600, 0);
    const resource = `lease-${randomUUID()}`;
    const lost: number[] = [];
    const lease = await leases.tryAcquire(resource, () => lost.push(Date.now()));
    expect(lease?.valid()).toBe(true);

    // A script busy for 2.5 s holds every other command, the extensions included, unanswered.
    const busy = createRedis({ kind: 'url', url: server.url }, { name: 'lease-test-busy' });
    busy.on('error', () => undefined);
    clients.push(busy);
    const busyFor = `local t = redis.call('TIME')
      local till = (t[1] * 1000000 + t[2]) + ARGV[1] * 1000
      repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] >= till
      return 1`;
    const busyEnded = busy.eval(busyFor, 0, 2500).then(() => Date.now());

    await expect.poll(() => lost.length, { timeout: 2000 }).toBe(1);
    expect(lease?.valid()).toBe(false);
    expect(lost[0]).toBeLessThan(await busyEnded);
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
