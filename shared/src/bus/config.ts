import { Type, type Static } from 'typebox';

/** Environment of the event bus, read by the dispatcher (publishers only need Redis). */
export const BusEnv = {
  EVENT_BUS: Type.Union([Type.Literal('redis'), Type.Literal('kafka')], {
    default: 'redis',
    description: 'Event bus implementation: `redis` (shard streams) or `kafka`.',
  }),
  EVENT_SHARDS: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 16,
    description: 'Shard streams of the Redis bus; fixed for the life of a gateway.',
  }),
  EVENT_LEASE_TTL_MS: Type.Integer({
    minimum: 500,
    default: 5000,
    description: 'Lease of a shard (and of the router); a dead holder loses it after this long.',
  }),
  EVENT_BUFFER: Type.Integer({
    minimum: 10,
    default: 2000,
    description: 'Unacknowledged events per shard or partition before reading pauses.',
  }),
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: '^[^,\\s]+(,[^,\\s]+)*$',
      description: 'Comma-separated Kafka brokers (host:port), for EVENT_BUS=kafka.',
    }),
  ),
  KAFKA_TOPIC: Type.String({ default: 'voicegw.events', description: 'Kafka topic of events.' }),
  KAFKA_PARTITIONS: Type.Integer({
    minimum: 1,
    default: 16,
    description: 'Partitions of the topic when the dispatcher creates it.',
  }),
  KAFKA_CLIENT_ID: Type.String({ default: 'voicegw', description: 'Kafka client id.' }),
  KAFKA_MAX_WAIT_MS: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 100,
    description:
      'Longest a consumer fetch waits at the broker for new events (kafkajs maxWaitTimeInMs).',
  }),
  KAFKA_PARTITIONS_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 4,
    description:
      'Partitions of one fetch handed over at once (kafkajs partitionsConsumedConcurrently).',
  }),
} as const;

export type BusConfig = Static<ReturnType<typeof Type.Object<typeof BusEnv>>>;
