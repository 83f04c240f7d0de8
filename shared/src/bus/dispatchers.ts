import type { Redis } from 'ioredis';
import type { RedisKeys } from '../redis/keys.js';

/**
 * Announces a dispatcher in the heartbeat set and returns how many are alive: those heard from
 * within the lease TTL, so that a dead one stops counting about when its leases expire. The
 * three commands leave in one write and Redis runs them in order, so the count includes this
 * beat; a MULTI around them built an ioredis pipeline object every round, which cost an idle
 * dispatcher more than the commands.
 */
export async function heartbeat(
  redis: Redis,
  keys: RedisKeys,
  dispatcherId: string,
  ttlMs: number,
): Promise<number> {
  const now = Date.now();
  const [, , live] = await Promise.all([
    redis.zadd(keys.dispatchers(), now, dispatcherId),
    redis.zremrangebyscore(keys.dispatchers(), 0, now - ttlMs),
    redis.zcard(keys.dispatchers()),
  ]);
  return Math.max(1, live);
}

/** Shard indexes in random order, so that dispatchers starting together spread out. */
export function shuffled(count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  return order;
}
