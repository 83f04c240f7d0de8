import { randomBytes } from 'node:crypto';
import { loadConfig, redisEndpoint, RedisEnv, type RedisEndpoint } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

const port = (fallback: number, description: string) =>
  Type.Integer({ minimum: 1, maximum: 65_535, default: fallback, description });

/**
 * Environment of `npm start`, the all-in-one development launcher. The descriptions are its
 * documentation: `npm run config:doc` renders them into docs/configuration.md.
 */
export const LauncherEnv = Type.Object({
  PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 8080,
    description: 'Port of the api.',
  }),
  // Given to every process as they are; without REDIS_URL or REDIS_SENTINELS a Redis is spawned.
  ...RedisEnv,
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://',
      description:
        'Use this Redis; when neither it nor `REDIS_SENTINELS` is set, a `redis-server` is ' +
        'spawned on a free port with AOF on.',
    }),
  ),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'Admin key of the api; generated and printed at start when unset.',
    }),
  ),
  DATA_DIR: Type.String({
    default: '.data',
    description:
      'Where the spawned Redis keeps its data (`DATA_DIR/redis`), the media node caches audio ' +
      '(`DATA_DIR/media`) and recordings are written and served (`DATA_DIR/recordings`, ' +
      '`RECORDINGS_DIR` of both).',
  }),
  SIM_HTTP_PORT: port(8090, 'Control API of the FreeSWITCH simulator (place calls, press digits).'),
  SIM_ESL_PORT: port(8021, 'Event-socket port of the simulator.'),
  SIM_SIP_PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 5080,
    description:
      "SIP trunk port of the simulator (FreeSWITCH's external profile port); `0`: any free port.",
  }),
  FS_ESL_HOST: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Drive this real FreeSWITCH instead of starting the simulator.',
    }),
  ),
  FS_ESL_PORT: port(8021, 'Its event-socket port (with `FS_ESL_HOST`).'),
  FS_ESL_PASSWORD: Type.String({
    default: 'ClueCon',
    description: 'Its event-socket password (with `FS_ESL_HOST`).',
  }),
  MEDIA_METRICS_PORT: port(9464, "The media node's `/metrics` and `/health` port."),
  RECORDING_PORT: port(8095, "Port of the media node's recording receiver."),
  DISPATCHER_METRICS_PORT: port(9465, "The webhook dispatcher's `/metrics` and `/health` port."),
  EVENT_BUS: Type.Union([Type.Literal('redis'), Type.Literal('kafka')], {
    default: 'redis',
    description: 'Event bus of the dispatcher: `redis`, or `kafka` with `KAFKA_BROKERS`.',
  }),
  KAFKA_BROKERS: Type.Optional(
    Type.String({
      minLength: 1,
      description: 'Kafka brokers (`host:port,…`) for `EVENT_BUS=kafka`.',
    }),
  ),
  RECORDING_SERVICE_URL: Type.Optional(
    Type.String({
      pattern: '^wss?://',
      description:
        'Given to the api and the media node, used with `RECORDING_MODE=stream`; set it when a ' +
        'real FreeSWITCH (`FS_ESL_HOST`) reaches this machine by another address. Unset: ' +
        '`ws://127.0.0.1:<RECORDING_PORT>/record`.',
    }),
  ),
  RECORDING_MODE: Type.Union([Type.Literal('file'), Type.Literal('stream')], {
    default: 'file',
    description:
      'Given to the api and the media node. `file`: the simulator (or the `FS_ESL_HOST` ' +
      'FreeSWITCH, which must see `DATA_DIR/recordings` at the same path) writes the ' +
      "recordings; `stream`: the media node's receiver does.",
  }),
});
export type LauncherConfig = Static<typeof LauncherEnv>;

export const loadLauncherConfig = (): LauncherConfig => loadConfig(LauncherEnv, process.env);

/**
 * The Redis the launcher was given (REDIS_URL, or REDIS_SENTINELS and the rest, checked as the
 * processes check them), or undefined: it spawns one.
 */
export const givenRedis = (config: LauncherConfig): RedisEndpoint | undefined =>
  (Object.keys(RedisEnv) as (keyof typeof RedisEnv)[]).some((name) => config[name] !== undefined)
    ? redisEndpoint(config)
    : undefined;

export const generateAdminKey = (): string => `dev-admin-${randomBytes(12).toString('hex')}`;

/** A child's environment: the launcher's own, with the given variables on top. */
export const childEnv = (vars: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  ...vars,
});
