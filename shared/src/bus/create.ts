import type { Redis } from 'ioredis';
import type { RedisEndpoint } from '../config/redis.js';
import type { Logger } from '../logger.js';
import type { RedisKeys } from '../redis/keys.js';
import type { BusConfig } from './config.js';
import { KafkaEventBus } from './kafka-bus.js';
import { RedisEventBus } from './redis-bus.js';
import type { EventBus } from './types.js';

export interface EventBusDeps {
  readonly redisEndpoint: RedisEndpoint;
  /** Command connection of the dispatcher. */
  readonly redis: Redis;
  readonly keys: RedisKeys;
  /** Unique id of this dispatcher process. */
  readonly dispatcherId: string;
  readonly log: Logger;
}

/** The bus EVENT_BUS names, as the dispatcher consumes it. */
export function createEventBus(config: BusConfig, deps: EventBusDeps): EventBus {
  const log = deps.log.child({ component: 'bus', bus: config.EVENT_BUS });
  if (config.EVENT_BUS === 'kafka') {
    if (!config.KAFKA_BROKERS) throw new Error('EVENT_BUS=kafka needs KAFKA_BROKERS');
    return new KafkaEventBus({
      brokers: config.KAFKA_BROKERS.split(','),
      clientId: config.KAFKA_CLIENT_ID,
      topic: config.KAFKA_TOPIC,
      partitions: config.KAFKA_PARTITIONS,
      buffer: config.EVENT_BUFFER,
      maxWaitMs: config.KAFKA_MAX_WAIT_MS,
      partitionsConcurrency: config.KAFKA_PARTITIONS_CONCURRENCY,
      redisEndpoint: deps.redisEndpoint,
      redis: deps.redis,
      keys: deps.keys,
      leaseTtlMs: config.EVENT_LEASE_TTL_MS,
      log,
    });
  }
  return new RedisEventBus({
    redisEndpoint: deps.redisEndpoint,
    redis: deps.redis,
    keys: deps.keys,
    shards: config.EVENT_SHARDS,
    leaseTtlMs: config.EVENT_LEASE_TTL_MS,
    buffer: config.EVENT_BUFFER,
    dispatcherId: deps.dispatcherId,
    log,
  });
}
