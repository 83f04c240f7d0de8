import type { Redis } from 'ioredis';
import type { RedisKeys } from '../redis/keys.js';

/**
 * An app's Standard Webhooks signing secret (`whsec_…`) as its hash stores it; undefined when
 * the app is unknown or has none. The api's AppStore writes the hash.
 */
export async function webhookSecret(
  redis: Redis,
  keys: RedisKeys,
  appId: string,
): Promise<string | undefined> {
  const secret = await redis.hget(keys.app(appId), 'webhook_secret');
  return secret || undefined;
}
