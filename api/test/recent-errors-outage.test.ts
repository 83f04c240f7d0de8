import { spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, useApi, useTenant } from './helpers.js';

let redis: SpawnedRedis;

beforeAll(async () => {
  redis = await spawnRedis({ appendOnly: false });
});
afterAll(() => redis.stop());
const api = useApi(() => ({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '200' }));
const tenant = useTenant(api);

describe('recent errors while Redis is down', () => {
  it('a 5xx caused by the outage is still listed, from this process', async () => {
    await redis.stop();
    const failed = await api.app.inject({ url: '/api/v1/conferences', headers: tenant.headers });
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toEqual({
      success: false,
      error: 'Internal error validating API key',
      code: 'auth_backend_failed',
    });

    await expect
      .poll(async () => {
        const res = await api.app.inject({
          url: '/admin/recent-errors',
          headers: { 'x-admin-api-key': ADMIN_KEY },
        });
        return res.json().errors?.[0];
      })
      .toMatchObject({
        trace_id: failed.headers['x-request-id'],
        method: 'GET',
        path: '/api/v1/conferences',
        pattern: '/api/v1/conferences',
        status_code: 500,
      });
  });
});
