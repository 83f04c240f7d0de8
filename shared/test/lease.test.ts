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

const keeper = () => {
  const redis = createRedis(server.url, { name: 'lease-test', commandTimeoutMs: 500 });
  redis.on('error', () => undefined);
  clients.push(redis);
  const { log, lines } = captureLogger();
  return { leases: new LeaseKeeper(redis, 5000, log), lines };
};

describe('LeaseKeeper', () => {
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
