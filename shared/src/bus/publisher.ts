import type { Redis } from 'ioredis';
import { RedisStreamPublisher, type EventPublisher } from '../events/publisher.js';
import { RedisKeys } from '../redis/keys.js';

/**
 * The one way a process publishes events, whatever EVENT_BUS says: an XADD to the ingest stream
 * (`RedisKeys.events()`), from which the dispatcher's router moves them onto the bus (Redis shard
 * streams or the Kafka topic) in order. The session-end script appends `call.hangup` to the same
 * stream atomically with ending the session, so one ordered entry point serves both paths.
 */
export function createEventPublisher(
  config: { readonly REDIS_PREFIX: string },
  redis: Redis,
): EventPublisher {
  return new RedisStreamPublisher(redis, new RedisKeys(config.REDIS_PREFIX));
}
