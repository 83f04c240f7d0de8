import type { Redis } from 'ioredis';
import { RedisStreamPublisher, type EventPublisher } from '../events/publisher.js';
import { RedisKeys } from '../redis/keys.js';
import type { UntilWritten } from '../redis/retry.js';

/**
 * The one way a process publishes events, whatever EVENT_BUS says: an XADD to the ingest stream
 * (`RedisKeys.events()`), from which the dispatcher's router moves them onto the bus (Redis shard
 * streams or the Kafka topic) in order. The session-end script appends `call.hangup` to the same
 * stream atomically with ending the session, so one ordered entry point serves both paths.
 * `retry`: how hard a publish tries (the media node's waits through a Redis outage).
 */
export function createEventPublisher(
  config: { readonly REDIS_PREFIX: string },
  redis: Redis,
  retry?: UntilWritten,
): EventPublisher {
  return new RedisStreamPublisher(redis, new RedisKeys(config.REDIS_PREFIX), retry);
}
