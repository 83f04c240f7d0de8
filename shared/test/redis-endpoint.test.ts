import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { CommonEnv, ConfigError, loadConfig, withRedisEndpoint } from '../src/index.js';

/** Every process's Redis variables, loaded and checked as its loader does. */
const load = (env: Record<string, string>) =>
  withRedisEndpoint(loadConfig(Type.Object(CommonEnv), env)).redisEndpoint;

const problems = (env: Record<string, string>): readonly string[] => {
  try {
    load(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  throw new Error('the configuration was accepted');
};

const SENTINELS = { REDIS_SENTINELS: 'sentinel-0:26379,10.0.0.2:26380,[fd00::3]:26381' };

describe('where the processes find Redis', () => {
  it('REDIS_URL alone: that URL, its password in it', () => {
    expect(load({ REDIS_URL: 'rediss://:secret@redis.example:6380/2' })).toEqual({
      kind: 'url',
      url: 'rediss://:secret@redis.example:6380/2',
    });
  });

  it('REDIS_SENTINELS with the primary name and passwords: each sentinel, IPv6 unbracketed', () => {
    expect(
      load({
        ...SENTINELS,
        REDIS_SENTINEL_NAME: 'voicegw',
        REDIS_PASSWORD: 'redis-secret',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      }),
    ).toEqual({
      kind: 'sentinel',
      sentinels: [
        { host: 'sentinel-0', port: 26379 },
        { host: '10.0.0.2', port: 26380 },
        { host: 'fd00::3', port: 26381 },
      ],
      name: 'voicegw',
      password: 'redis-secret',
      sentinelPassword: 'sentinel-secret',
    });
    expect(load({ ...SENTINELS, REDIS_SENTINEL_NAME: 'voicegw' })).toMatchObject({
      password: undefined,
      sentinelPassword: undefined,
    });
  });

  it('REDIS_USERNAME and REDIS_SENTINEL_USERNAME: the ACL users of the servers and of the sentinels', () => {
    expect(
      load({
        ...SENTINELS,
        REDIS_SENTINEL_NAME: 'voicegw',
        REDIS_USERNAME: 'gateway',
        REDIS_PASSWORD: 'redis-secret',
        REDIS_SENTINEL_USERNAME: 'watcher',
        REDIS_SENTINEL_PASSWORD: 'sentinel-secret',
      }),
    ).toMatchObject({
      username: 'gateway',
      password: 'redis-secret',
      sentinelUsername: 'watcher',
      sentinelPassword: 'sentinel-secret',
    });
    expect(problems({ REDIS_URL: 'redis://r:6379', REDIS_USERNAME: 'gateway' })).toEqual([
      'REDIS_USERNAME is only read with REDIS_SENTINELS: with REDIS_URL, the user goes in the URL',
    ]);
    expect(
      problems({ ...SENTINELS, REDIS_SENTINEL_NAME: 'voicegw', REDIS_USERNAME: 'a b' }),
    ).toEqual([expect.stringMatching(/^REDIS_USERNAME must match pattern/)]);
  });

  it('refuses neither, both, or Sentinel variables without REDIS_SENTINELS, naming them', () => {
    expect(problems({})).toEqual(['REDIS_URL is required (or REDIS_SENTINELS)']);
    expect(
      problems({ REDIS_URL: 'redis://r:6379', ...SENTINELS, REDIS_SENTINEL_NAME: 'voicegw' }),
    ).toEqual(['REDIS_URL and REDIS_SENTINELS are both set: set one of them']);
    expect(problems({ REDIS_URL: 'redis://r:6379', REDIS_PASSWORD: 'secret' })).toEqual([
      'REDIS_PASSWORD is only read with REDIS_SENTINELS: with REDIS_URL, the password goes in the URL',
    ]);
    expect(problems({ REDIS_SENTINEL_NAME: 'voicegw' })).toEqual([
      'REDIS_URL is required (or REDIS_SENTINELS)',
      'REDIS_SENTINEL_NAME is only read with REDIS_SENTINELS',
    ]);
  });

  it('refuses sentinels without the primary name, a port out of range, or a malformed list', () => {
    expect(problems(SENTINELS)).toEqual(['REDIS_SENTINEL_NAME is required with REDIS_SENTINELS']);
    expect(
      problems({ REDIS_SENTINELS: 's1:26379,s2:70000', REDIS_SENTINEL_NAME: 'voicegw' }),
    ).toEqual(['REDIS_SENTINELS: the port of s2:70000 is not 1-65535']);
    for (const list of ['s1', 's1:26379,', 's1:26379, s2:26379', 'redis://s1:26379']) {
      expect(problems({ REDIS_SENTINELS: list, REDIS_SENTINEL_NAME: 'voicegw' })).toEqual([
        expect.stringMatching(/^REDIS_SENTINELS must match pattern/),
      ]);
    }
    expect(problems({ ...SENTINELS, REDIS_SENTINEL_NAME: 'two words' })).toEqual([
      expect.stringMatching(/^REDIS_SENTINEL_NAME must match pattern/),
    ]);
  });
});
