import { Type, type Static } from 'typebox';

/** Environment of the event bus, read by the dispatcher (publishers only need Redis). */
export const BusEnv = {
  EVENT_BUS: Type.Union([Type.Literal('redis'), Type.Literal('kafka')], {
    default: 'redis',
    description:
      '`redis`: shard streams in Redis; `kafka`: the Kafka topic `KAFKA_TOPIC`. Every process ' +
      'publishes to Redis either way; the dispatcher routes events onto the bus.',
  }),
  EVENT_SHARDS: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 16,
    description:
      "Shard streams of the Redis bus (an app's shard is a hash of its id). Fixed for a " +
      'gateway: a dispatcher with another value refuses to start.',
  }),
  EVENT_LEASE_TTL_MS: Type.Integer({
    minimum: 500,
    default: 5000,
    description:
      'Lease of a shard and of the router. A dispatcher that dies loses its shards after this ' +
      'long, and another takes them over.',
  }),
  EVENT_BUFFER: Type.Integer({
    minimum: 10,
    default: 2000,
    description: 'Unacknowledged events per shard (or Kafka partition) before reading it pauses.',
  }),
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      pattern: '^[^,\\s]+(,[^,\\s]+)*$',
      description: 'Comma-separated `host:port` list; required with `EVENT_BUS=kafka`.',
    }),
  ),
  KAFKA_TOPIC: Type.String({
    default: 'voicegw.events',
    description: 'Topic of the Kafka bus, keyed by app id.',
  }),
  KAFKA_PARTITIONS: Type.Integer({
    minimum: 1,
    default: 16,
    description: 'Partitions of the topic when the dispatcher has to create it.',
  }),
  KAFKA_CLIENT_ID: Type.String({ default: 'voicegw', description: 'Kafka client id.' }),
  KAFKA_MAX_WAIT_MS: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 100,
    description:
      'Longest a consumer fetch waits at the broker for events (kafkajs `maxWaitTimeInMs`). ' +
      'An event ends the wait, so lower does not cut latency; it adds idle fetches.',
  }),
  KAFKA_PARTITIONS_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 4,
    description:
      'Partitions of one fetch response handed over at once (kafkajs ' +
      '`partitionsConsumedConcurrently`).',
  }),
} as const;

export type BusConfig = Static<ReturnType<typeof Type.Object<typeof BusEnv>>>;
