// @voicegw/shared/bus: the event bus, for the processes that read it (the dispatcher) and the
// tests of it. Kept off the main entry so that publishers (api, media node) do not load kafkajs
// and redlock; they publish with createEventPublisher from @voicegw/shared.
export { createEventBus } from './create.js';
export type { EventBusDeps } from './create.js';
export { BusEnv } from './config.js';
export type { BusConfig } from './config.js';
export type { BusEvent, BusHandler, EventBus } from './types.js';
export { RedisEventBus } from './redis-bus.js';
export { KafkaEventBus, KAFKA_GROUP } from './kafka-bus.js';
export { SHARD_GROUP } from './shard-streams.js';
export { shardOf, streamPosition, offsetPosition } from './shard.js';
