import { Type, type Static, type TObject } from 'typebox';
import { ConfigError } from './load.js';

/** `host:port`, the host a name, an IPv4 address or an IPv6 address in brackets. */
const ADDRESS = '(\\[[0-9A-Fa-f:.]+\\]|[^,\\s:/\\[\\]]+):[0-9]{1,5}';

/**
 * Where every process finds Redis: one URL, or the sentinels that name the primary. Part of
 * each process's environment (CommonEnv); `redisEndpoint` checks how the variables combine.
 */
export const RedisEnv = {
  REDIS_URL: Type.Optional(
    Type.String({
      pattern: '^rediss?://',
      description:
        'Redis connection URL, `redis://` or `rediss://`, with the password if any. Redis is the ' +
        'system of record: run it with AOF. Required unless `REDIS_SENTINELS` is set (not both).',
    }),
  ),
  REDIS_SENTINELS: Type.Optional(
    Type.String({
      pattern: `^${ADDRESS}(,${ADDRESS})*$`,
      description:
        'Redis through Sentinel instead of `REDIS_URL`: the sentinels, `host:port,host:port,…` ' +
        '(an IPv6 host in brackets). Every connection asks them for the primary of ' +
        '`REDIS_SENTINEL_NAME`, and asks again after a failover.',
    }),
  ),
  REDIS_SENTINEL_NAME: Type.Optional(
    Type.String({
      pattern: '^[^\\s]{1,128}$',
      description:
        "The primary's name in Sentinel (`sentinel monitor <name> …`); required with " +
        '`REDIS_SENTINELS`.',
    }),
  ),
  REDIS_USERNAME: Type.Optional(
    Type.String({
      pattern: '^[^\\s]{1,128}$',
      description:
        'With `REDIS_SENTINELS`: the ACL user the processes log in to the Redis servers as ' +
        '(`AUTH <user> <password>`, Redis 6+), with `REDIS_PASSWORD`; unset, the default user. ' +
        'With `REDIS_URL` the user goes in the URL.',
    }),
  ),
  REDIS_SENTINEL_USERNAME: Type.Optional(
    Type.String({
      pattern: '^[^\\s]{1,128}$',
      description:
        "With `REDIS_SENTINELS`: the ACL user of the sentinels' own, with " +
        '`REDIS_SENTINEL_PASSWORD`; unset, the default user.',
    }),
  ),
  REDIS_PASSWORD: Type.Optional(
    Type.String({
      description:
        "With `REDIS_SENTINELS`: the Redis servers' password (`requirepass`). With `REDIS_URL` " +
        'the password goes in the URL.',
    }),
  ),
  REDIS_SENTINEL_PASSWORD: Type.Optional(
    Type.String({
      description:
        "With `REDIS_SENTINELS`: the sentinels' own password (their `requirepass`), when they " +
        'have one.',
    }),
  ),
} as const;

type RedisVariables = Static<TObject<typeof RedisEnv>>;

/** Read only when Redis is reached through Sentinel. */
const SENTINEL_ONLY = [
  'REDIS_SENTINEL_NAME',
  'REDIS_USERNAME',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_USERNAME',
  'REDIS_SENTINEL_PASSWORD',
] as const;

/** What of a Sentinel-only variable a `REDIS_URL` carries itself. */
const IN_THE_URL: Partial<Record<(typeof SENTINEL_ONLY)[number], string>> = {
  REDIS_USERNAME: 'user',
  REDIS_PASSWORD: 'password',
};

export interface SentinelAddress {
  readonly host: string;
  readonly port: number;
}

/** Redis as the processes reach it, checked: a URL, or a primary found through Sentinel. */
export type RedisEndpoint =
  | { readonly kind: 'url'; readonly url: string }
  | {
      readonly kind: 'sentinel';
      readonly sentinels: readonly SentinelAddress[];
      /** The primary's name in Sentinel. */
      readonly name: string;
      /** The Redis servers' ACL user (the default user when unset) and password. */
      readonly username: string | undefined;
      readonly password: string | undefined;
      /** The sentinels' own ACL user and password. */
      readonly sentinelUsername: string | undefined;
      readonly sentinelPassword: string | undefined;
    };

/** A process's configuration with its Redis endpoint checked and attached. */
export type WithRedisEndpoint<C> = C & { readonly redisEndpoint: RedisEndpoint };

/**
 * The endpoint the Redis variables describe, or a ConfigError naming what is wrong with how they
 * combine (the schema has checked each alone): exactly one of REDIS_URL and REDIS_SENTINELS, a
 * primary's name with the sentinels, and no Sentinel-only variable without them.
 */
export function redisEndpoint(config: RedisVariables): RedisEndpoint {
  const { REDIS_URL: url, REDIS_SENTINELS: list } = config;
  if (url !== undefined && list !== undefined) {
    throw new ConfigError(['REDIS_URL and REDIS_SENTINELS are both set: set one of them']);
  }
  if (list === undefined) {
    const problems = SENTINEL_ONLY.filter((name) => config[name] !== undefined).map(
      (name) =>
        `${name} is only read with REDIS_SENTINELS` +
        (IN_THE_URL[name] ? `: with REDIS_URL, the ${IN_THE_URL[name]} goes in the URL` : ''),
    );
    if (url === undefined) problems.unshift('REDIS_URL is required (or REDIS_SENTINELS)');
    if (problems.length > 0 || url === undefined) throw new ConfigError(problems);
    return { kind: 'url', url };
  }
  const sentinels = list.split(',').map(parseAddress);
  const problems = sentinels
    .filter((s) => s.port < 1 || s.port > 65_535)
    .map((s) => `REDIS_SENTINELS: the port of ${s.host}:${s.port} is not 1-65535`);
  const name = config.REDIS_SENTINEL_NAME;
  if (name === undefined) problems.push('REDIS_SENTINEL_NAME is required with REDIS_SENTINELS');
  if (problems.length > 0 || name === undefined) throw new ConfigError(problems);
  return {
    kind: 'sentinel',
    sentinels,
    name,
    username: config.REDIS_USERNAME,
    password: config.REDIS_PASSWORD,
    sentinelUsername: config.REDIS_SENTINEL_USERNAME,
    sentinelPassword: config.REDIS_SENTINEL_PASSWORD,
  };
}

/** `host:port` or `[v6]:port`, already matched by the schema's pattern. */
function parseAddress(address: string): SentinelAddress {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, '$1');
  return { host, port: Number(address.slice(colon + 1)) };
}

/** Checks a loaded configuration's Redis variables and attaches the endpoint they describe. */
export function withRedisEndpoint<C extends RedisVariables>(config: C): WithRedisEndpoint<C> {
  return Object.freeze({ ...config, redisEndpoint: redisEndpoint(config) });
}
