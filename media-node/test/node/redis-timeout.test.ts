import { randomUUID } from 'node:crypto';
import { captureLogger, spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { loadMediaNodeConfig, startMediaNode, type MediaNode } from '../../src/index.js';
import { TEST_NODE_ENV } from './harness.js';

// A Redis of its own: CLIENT PAUSE would stall every other test file on the shared one.
let redis: SpawnedRedis;
let client: Redis;
let sim: Simulator;
let node: MediaNode | undefined;

beforeAll(async () => {
  redis = await spawnRedis({ appendOnly: false });
  client = new Redis(redis.url);
  sim = await startSimulator({ eslPort: 0, httpPort: 0 });
});
afterAll(async () => {
  await node?.close();
  await sim.close();
  client.disconnect();
  await redis.stop();
});

describe('the media node Redis command timeout', () => {
  it('is REDIS_COMMAND_TIMEOUT_MS: a stalled Redis fails its commands after it, not after 2 s', async () => {
    const { log, lines } = captureLogger();
    node = await startMediaNode(
      loadMediaNodeConfig({
        ...TEST_NODE_ENV,
        REDIS_URL: redis.url,
        REDIS_PREFIX: 'timeout',
        NODE_NAME: `node-${randomUUID()}`,
        FS_ESL_PORT: String(sim.eslPort),
        REDIS_COMMAND_TIMEOUT_MS: '200',
      }),
      { logger: log },
    );

    const paused = Date.now();
    await client.client('PAUSE', 2000, 'ALL');
    // The heartbeat (every 200 ms here) is the first command to stall.
    const timedOut = () =>
      lines.find((l) => l.msg === 'heartbeat failed' && l.err?.message === 'Command timed out');
    await expect.poll(timedOut, { timeout: 1900, interval: 20 }).toBeDefined();
    expect(Date.parse(timedOut()!.time) - paused).toBeLessThan(1000);
  });
});
