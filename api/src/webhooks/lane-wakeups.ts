import { createRedis, type RedisEndpoint, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';

/**
 * Calls `woken` whenever the api announces a lane it filled (a dead-letter replay), on a
 * connection of its own; and on every (re)connect, since an announcement may have been missed
 * while the connection was down.
 */
export async function subscribeLaneWakeups(
  endpoint: RedisEndpoint,
  keys: RedisKeys,
  woken: () => void,
  onError: (err: Error) => void,
): Promise<Redis> {
  const subscriber = createRedis(endpoint, { name: 'dispatcher:lanes-woken' });
  subscriber.on('error', onError);
  subscriber.on('message', woken);
  subscriber.on('ready', woken);
  await subscriber.subscribe(keys.webhookLanesWoken());
  return subscriber;
}
