import { spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminRequest, useApi, type TestApi } from './helpers.js';

const UNAVAILABLE = {
  success: false,
  error: 'Configuration store unavailable',
  code: 'config_store_unavailable',
};
const FAILED = {
  success: false,
  error: 'Failed to access the configuration store',
  code: 'admin_store_failed',
};

function admin(api: TestApi, method: NonNullable<InjectOptions['method']>, url: string) {
  const payload = method === 'PUT' ? '["0501234567"]' : method === 'POST' ? '{}' : undefined;
  return adminRequest(api, method, url, undefined, payload);
}

describe('Redis unreachable (a dedicated redis-server, stopped)', () => {
  let redis: SpawnedRedis;
  beforeAll(async () => {
    redis = await spawnRedis({ appendOnly: false });
  });
  afterAll(() => redis.stop());
  const api = useApi(() => ({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '300' }));

  beforeAll(async () => {
    // The helper's inspection connection would report every failed reconnect as unhandled.
    api.redis.on('error', () => undefined);
    expect((await admin(api, 'POST', '/admin/apps/known_app')).statusCode).toBe(200);
    await redis.stop();
  });

  it.each([
    ['POST', '/admin/apps/known_app'],
    ['GET', '/admin/apps/known_app'],
    ['DELETE', '/admin/apps/known_app'],
    ['PUT', '/admin/apps/known_app/cids'],
    ['GET', '/admin/apps/known_app/cids'],
    ['DELETE', '/admin/apps/known_app/cids/0501234567'],
    ['PUT', '/admin/apps/known_app/dids'],
    ['GET', '/admin/apps/known_app/dids'],
    ['DELETE', '/admin/apps/known_app/dids/0501234567'],
    // GET /admin/recent-errors keeps answering from this process: recent-errors-outage.test.ts
  ] as const)('%s %s answers 503 Configuration store unavailable', async (method, url) => {
    const res = await admin(api, method, url);
    expect({ status: res.statusCode, body: res.json() }).toEqual({
      status: 503,
      body: UNAVAILABLE,
    });
  });

  it('a request the admin key refuses still answers 401, not 503', async () => {
    const res = await api.app.inject({ method: 'GET', url: '/admin/apps/known_app' });
    expect(res.statusCode).toBe(401);
  });

  it('/admin/health still answers 200, degraded, with Redis down', async () => {
    const res = await admin(api, 'GET', '/admin/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'degraded',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      redis: 'down',
      media_nodes: 0,
      degraded_media_nodes: [],
    });
  });
});

describe('other configuration store failures', () => {
  const api = useApi();

  it('an app key holding the wrong type answers 500 on GET and POST', async () => {
    await api.redis.set(api.keys.app('wrong_type'), 'a string, not a hash');
    for (const method of ['GET', 'POST'] as const) {
      const res = await admin(api, method, '/admin/apps/wrong_type');
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 500, body: FAILED });
    }
  });

  it('a stored configuration that cannot be parsed answers 500', async () => {
    await api.redis.hset(api.keys.app('bad_events'), { api_key: 'k'.repeat(16), events: '[oops' });
    const res = await admin(api, 'GET', '/admin/apps/bad_events');
    expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 500, body: FAILED });
  });

  it('a caller-ID list holding the wrong type answers 500', async () => {
    expect((await admin(api, 'POST', '/admin/apps/bad_cids')).statusCode).toBe(200);
    await api.redis.set(api.keys.appCids('bad_cids'), 'a string, not a set');
    for (const method of ['GET', 'PUT'] as const) {
      const res = await admin(api, method, '/admin/apps/bad_cids/cids');
      expect({ status: res.statusCode, body: res.json() }).toEqual({ status: 500, body: FAILED });
    }
  });
});
