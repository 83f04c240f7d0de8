import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { inject, describe, expect, it } from 'vitest';
import { PortTakenError, spawnRedis } from '../src/redis-server.js';

describe('test redis-server', () => {
  it('answers PING on the URL the global setup provides', async () => {
    const redis = new Redis(inject('redisUrl'));
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
  });

  // What lets spawnRedis try another port when a probed one was taken before Redis bound it.
  it('fails on a port another process holds as PortTakenError, saying so', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const { port } = holder.address() as { port: number };
    try {
      const spawned = spawnRedis({ appendOnly: false, port });
      await expect(spawned).rejects.toBeInstanceOf(PortTakenError);
      await expect(spawned).rejects.toThrow(/Address already in use/);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });
});
