import { spawnRedis, type SpawnedRedis } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, createTenant, startApi, type TestApi, type TestTenant } from './helpers.js';

let redis: SpawnedRedis;
let api: TestApi;
let tenant: TestTenant;

beforeAll(async () => {
  redis = await spawnRedis({ appendOnly: false });
  api = await startApi({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '200' });
  tenant = await createTenant(api);
});
afterAll(async () => {
  await api.close();
  await redis.stop();
});

describe('recent errors while Redis is down', () => {
  it('a 5xx caused by the outage is still listed, from this process', async () => {
    await redis.stop();
    const failed = await api.app.inject({ url: '/api/v1/conferences', headers: tenant.headers });
    expect(failed.statusCode).toBe(500);
    expect(failed.json()).toEqual({ success: false, error: 'Internal error validating API key' });

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
