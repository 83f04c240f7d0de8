// createRedis through Sentinel with passwords on both sides, as REDIS_PASSWORD and
// REDIS_SENTINEL_PASSWORD give them: a primary with requirepass, a sentinel with its own; and
// as ACL users (REDIS_USERNAME, REDIS_SENTINEL_USERNAME) on each.
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  redisSentinelAvailable,
  redisSentinelMissingMessage,
  spawnRedis,
  spawnSentinel,
  type SpawnedRedis,
  type SpawnedSentinel,
} from '@voicegw/tools';
import { createRedis, type RedisEndpoint } from '../src/index.js';

const NAME = 'auth-test';
const REDIS_PASSWORD = 'redis-secret';
const SENTINEL_PASSWORD = 'sentinel-secret';
let primary: SpawnedRedis;
let sentinel: SpawnedSentinel;

beforeAll(async () => {
  if (!redisSentinelAvailable()) throw new Error(redisSentinelMissingMessage());
  primary = await spawnRedis({ appendOnly: false, password: REDIS_PASSWORD });
  sentinel = await spawnSentinel({
    primary: { name: NAME, port: primary.port, password: REDIS_PASSWORD },
    password: SENTINEL_PASSWORD,
    quorum: 1,
    downAfterMs: 5000,
    failoverTimeoutMs: 10_000,
  });
});
afterAll(async () => {
  await sentinel?.stop();
  await primary?.stop();
});

type SentinelEndpoint = Extract<RedisEndpoint, { kind: 'sentinel' }>;

const endpoint = (passwords: { redis?: string; sentinel?: string }): SentinelEndpoint => ({
  kind: 'sentinel',
  sentinels: [{ host: '127.0.0.1', port: sentinel.port }],
  name: NAME,
  username: undefined,
  password: passwords.redis,
  sentinelUsername: undefined,
  sentinelPassword: passwords.sentinel,
});

/** What a connection answers to ROLE within 2 s, or why it could not. */
async function role(target: RedisEndpoint): Promise<string> {
  const redis = createRedis(target, { name: 'sentinel-auth-test', commandTimeoutMs: 2000 });
  const errors: string[] = [];
  redis.on('error', (err: Error) => errors.push(err.message));
  try {
    const [kind] = (await redis.role()) as [string, ...unknown[]];
    return kind;
  } catch (err) {
    return `failed: ${[...errors, (err as Error).message].join(' | ')}`;
  } finally {
    redis.disconnect();
  }
}

describe('Redis through Sentinel, with passwords', () => {
  it('asks the sentinel with its password and reaches the primary with the Redis password', async () => {
    expect(await role(endpoint({ redis: REDIS_PASSWORD, sentinel: SENTINEL_PASSWORD }))).toBe(
      'master',
    );
  });

  it('without the sentinel password, or with the wrong Redis password, gets no connection', async () => {
    expect(await role(endpoint({ redis: REDIS_PASSWORD }))).toMatch(/^failed: .*NOAUTH/);
    expect(await role(endpoint({ redis: 'wrong', sentinel: SENTINEL_PASSWORD }))).toMatch(
      /^failed: .*WRONGPASS/,
    );
  });
});

/** Runs `ACL SETUSER <args>` on the server at `port` as its default user. */
async function aclUser(port: number, password: string, args: readonly string[]): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port, password, lazyConnect: true });
  try {
    await redis.connect();
    expect(await redis.call('ACL', 'SETUSER', ...args)).toBe('OK');
  } finally {
    redis.disconnect();
  }
}

describe('Redis through Sentinel, as ACL users', () => {
  it('asks the sentinel as its user and reaches the primary as another; a wrong user gets nothing', async () => {
    await aclUser(primary.port, REDIS_PASSWORD, [
      'gateway',
      'on',
      '>gateway-secret',
      '~*',
      '&*',
      '+@all',
    ]);
    await aclUser(sentinel.port, SENTINEL_PASSWORD, ['watcher', 'on', '>watcher-secret', '+@all']);
    const asUsers: SentinelEndpoint = {
      ...endpoint({ redis: 'gateway-secret', sentinel: 'watcher-secret' }),
      username: 'gateway',
      sentinelUsername: 'watcher',
    };
    expect(await role(asUsers)).toBe('master');
    // The default user's password under the ACL user's name, on either side: refused.
    expect(await role({ ...asUsers, password: REDIS_PASSWORD })).toMatch(/^failed: .*WRONGPASS/);
    expect(await role({ ...asUsers, sentinelPassword: SENTINEL_PASSWORD })).toMatch(
      /^failed: .*WRONGPASS/,
    );
  });
});
