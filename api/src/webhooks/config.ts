import {
  BooleanFlag,
  CommonEnv,
  ConfigError,
  loadConfig,
  SweepEnv,
  withRedisEndpoint,
  type WithRedisEndpoint,
} from '@voicegw/shared';
import { BusEnv } from '@voicegw/shared/bus';
import { Type, type Static } from 'typebox';
import { DEFAULT_RETRY_SCHEDULE, SCHEDULE_PATTERN } from './schedule.js';

const ms = (fallback: number, minimum: number, description: string) =>
  Type.Integer({ minimum, default: fallback, description });

/**
 * Environment of the webhook dispatcher. The descriptions are its documentation:
 * `npm run config:doc` renders them into docs/configuration.md.
 */
export const DispatcherEnv = Type.Object({
  ...CommonEnv,
  ...BusEnv,
  // The dispatcher sweeps dead media nodes too: a gateway always runs one, whatever its nodes do.
  ...SweepEnv,
  DISPATCHER_METRICS_PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 9465,
    description: "Port of the dispatcher's `/metrics` and `/health`.",
  }),
  DISPATCHER_HOST: Type.String({
    default: '0.0.0.0',
    description: 'Listen address of `/metrics` and `/health`.',
  }),
  ALLOW_LOCALHOST_WEBHOOKS: BooleanFlag(
    false,
    'Deliver to hosts that resolve to loopback, private, link-local or unique-local addresses.',
  ),
  APP_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 1000,
    description:
      'How long app configuration is cached in process (changes are also pushed over Redis ' +
      'pub/sub).',
  }),
  WEBHOOK_TIMEOUT_MS: ms(
    15_000,
    100,
    'One deadline from sending a webhook to the last byte of its answer; an answer still coming ' +
      'then is cut off, and its status line, if it came, decides. Connecting has as long again.',
  ),
  WEBHOOK_RETRY_SCHEDULE: Type.String({
    default: DEFAULT_RETRY_SCHEDULE,
    pattern: SCHEDULE_PATTERN,
    description:
      'Delay before each attempt (the first is the first try), e.g. `0,5s,5m`; units `ms`, `s`, ' +
      '`m`, `h`. After the last, the event is dead-lettered.',
  }),
  WEBHOOK_RETRY_JITTER: Type.Number({
    minimum: 0,
    maximum: 0.9,
    default: 0.2,
    description: 'Each retry delay varies by up to this fraction either way.',
  }),
  WEBHOOK_RETRY_AFTER_MAX_MS: ms(
    36_000_000,
    0,
    'A `Retry-After` (on 429 or 503) longer than this is clamped to it.',
  ),
  WEBHOOK_DISABLE_AFTER_MS: ms(
    432_000_000,
    1,
    'An app whose webhook has failed this long (5 days) without a success is disabled.',
  ),
  WEBHOOK_MAX_IN_FLIGHT: Type.Integer({
    minimum: 1,
    default: 512,
    description: 'Webhook requests in flight at once, over all apps.',
  }),
  WEBHOOK_CONNECTIONS_PER_ORIGIN: Type.Integer({
    minimum: 1,
    default: 32,
    description: 'Keep-alive connections per receiver origin.',
  }),
  WEBHOOK_QUEUE_PER_APP: Type.Integer({
    minimum: 1,
    default: 1000,
    description:
      "Events of one app held in memory; beyond it they are parked in the app's retry lane.",
  }),
  DEAD_LETTER_MAX: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Dead letters kept per app; the oldest are dropped beyond it.',
  }),
  LANE_POLL_INTERVAL_MS: ms(
    250,
    10,
    'How often the retry lanes are checked for attempts that are due, while any lane waits in ' +
      "the dispatcher's partitions (every 30 s while none does: a dead-letter replay is announced).",
  ),
  REDIS_COMMAND_TIMEOUT_MS: ms(
    5000,
    50,
    'A dispatcher Redis command slower than this fails (the work it belonged to is retried) ' +
      'instead of stalling delivery.',
  ),
});

export type DispatcherConfig = WithRedisEndpoint<Static<typeof DispatcherEnv>>;

export function loadDispatcherConfig(env: NodeJS.ProcessEnv = process.env): DispatcherConfig {
  const config = withRedisEndpoint(loadConfig(DispatcherEnv, env));
  if (config.EVENT_BUS === 'kafka' && !config.KAFKA_BROKERS) {
    throw new ConfigError(['KAFKA_BROKERS is required when EVENT_BUS is kafka']);
  }
  return config;
}
