import { Redis } from 'ioredis';
import { inject, describe, expect, it } from 'vitest';

describe('test redis-server', () => {
  it('answers PING on the URL the global setup provides', async () => {
    const redis = new Redis(inject('redisUrl'));
    expect(await redis.ping()).toBe('PONG');
    redis.disconnect();
  });
});
