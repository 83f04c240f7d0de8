import { captureLogger, spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDispatcher, type Dispatcher } from '../src/webhooks/start.js';
import { dispatcherEnv } from './dispatcher-helpers.js';

// A Redis of its own: CLIENT PAUSE would stall every other test file on the shared one.
let redis: SpawnedRedis;
let client: Redis;
let dispatcher: Dispatcher | undefined;

beforeAll(async () => {
  redis = await spawnRedis({ appendOnly: false });
  client = new Redis(redis.url);
});
afterAll(async () => {
  await dispatcher?.close();
  client.disconnect();
  await redis.stop();
});

describe('the dispatcher Redis command timeout', () => {
  it('is REDIS_COMMAND_TIMEOUT_MS: a stalled Redis fails its commands after it, not after 5 s', async () => {
    const { log, lines } = captureLogger();
    dispatcher = await startDispatcher(
      dispatcherEnv('timeout', { REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '200' }),
      { logger: log },
    );
    // The lane poll runs once the dispatcher reads a shard.
    await expect.poll(() => dispatcher!.bus.owned().length).toBeGreaterThan(0);

    const paused = Date.now();
    await client.client('PAUSE', 2000, 'ALL');
    // Lease extensions (every 500 ms here) are the first commands to stall.
    const timedOut = () => lines.find((l) => l.err?.message === 'Command timed out');
    await expect.poll(timedOut, { timeout: 1900 }).toBeDefined();
    expect(Date.parse(timedOut()!.time) - paused).toBeLessThan(1200);
  });
});
