import type { InjectOptions } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, useApi, withApi, type TestApi } from './helpers.js';

// These tests walk every admin route with bad keys from one client address; the unauthenticated
// window is widened so that they see the 401s (the last test checks the window itself).
const WIDE = { RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' };

const api = useApi(WIDE);
const unconfigured = useApi({ ...WIDE, ADMIN_API_KEY: '' });

type Method = NonNullable<InjectOptions['method']>;

/** Every admin route of the OpenAPI document, with its path parameters filled in. */
function adminRoutes(target: TestApi): [Method, string][] {
  const doc = target.app.swagger() as { paths: Record<string, Record<string, unknown>> };
  return Object.entries(doc.paths)
    .filter(([path]) => path.startsWith('/admin/'))
    .flatMap(([path, operations]) =>
      Object.keys(operations).map((method): [Method, string] => [
        method.toUpperCase(),
        path.replace('{app_id}', 'some_app').replace('{number}', '0501234567'),
      ]),
    );
}

const request = (target: TestApi, method: Method, url: string, headers: Record<string, string>) =>
  target.app.inject({
    method,
    url,
    headers: { ...headers, 'content-type': 'application/json' },
    ...(method === 'POST' || method === 'PUT' ? { payload: method === 'PUT' ? '[]' : '{}' } : {}),
  });

const MISSING = { error: 'Missing X-Admin-API-Key header', code: 'missing_admin_key' };

/** Sends `headers` to every admin route of `target`: each must answer `status` with `refusal`. */
async function expectEveryAdminRoute(
  target: TestApi,
  headers: Record<string, string>,
  status: number,
  refusal: { error: string; code: string },
) {
  for (const [method, url] of adminRoutes(target)) {
    const res = await request(target, method, url, headers);
    expect([method, url, res.statusCode, res.json()]).toEqual([
      method,
      url,
      status,
      { success: false, ...refusal },
    ]);
  }
}

describe('admin authentication', () => {
  it('the admin routes are the ones this file expects', () => {
    expect(adminRoutes(api).map(([m, u]) => `${m} ${u}`)).toEqual(
      expect.arrayContaining([
        'POST /admin/apps/some_app',
        'GET /admin/apps/some_app',
        'DELETE /admin/apps/some_app',
        'PUT /admin/apps/some_app/cids',
        'GET /admin/apps/some_app/cids',
        'DELETE /admin/apps/some_app/cids/0501234567',
        'PUT /admin/apps/some_app/dids',
        'GET /admin/apps/some_app/dids',
        'DELETE /admin/apps/some_app/dids/0501234567',
        'GET /admin/health',
        'GET /admin/recent-errors',
        'POST /admin/apps/some_app/webhooks/retry',
      ]),
    );
  });

  it('every admin route without X-Admin-API-Key answers 401', () =>
    expectEveryAdminRoute(api, {}, 401, MISSING));

  it('every admin route with an empty X-Admin-API-Key answers 401 Missing', () =>
    expectEveryAdminRoute(api, { 'x-admin-api-key': '' }, 401, MISSING));

  it.each([
    ['a different key of the same length', ADMIN_KEY.replace(/.$/, 'X')],
    ['a prefix of the key', ADMIN_KEY.slice(0, 10)],
    ['the key with a suffix', `${ADMIN_KEY}0`],
    ['the key in another case', ADMIN_KEY.toUpperCase()],
  ])('every admin route with %s answers 401 Invalid admin API key', (_name, key) =>
    expectEveryAdminRoute(api, { 'x-admin-api-key': key }, 401, {
      error: 'Invalid admin API key',
      code: 'invalid_admin_key',
    }),
  );

  it('the application key of an app does not open the admin API', async () => {
    const res = await request(api, 'GET', '/admin/health', {
      'x-app-id': 'some_app',
      'x-api-key': ADMIN_KEY,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({ success: false, ...MISSING });
  });

  it('the right key opens every admin route', async () => {
    for (const [method, url] of adminRoutes(api)) {
      const res = await request(api, method, url, { 'x-admin-api-key': ADMIN_KEY });
      expect([method, url, res.statusCode]).not.toEqual([method, url, 401]);
      expect(res.statusCode).toBeLessThan(500);
    }
  });

  it('without ADMIN_API_KEY every admin route answers 503, whatever key is sent', async () => {
    expect(adminRoutes(unconfigured).length).toBeGreaterThanOrEqual(11);
    const headerSets: Record<string, string>[] = [
      {},
      { 'x-admin-api-key': ADMIN_KEY },
      { 'x-admin-api-key': '' },
    ];
    for (const headers of headerSets) {
      await expectEveryAdminRoute(unconfigured, headers, 503, {
        error: 'Admin API not configured',
        code: 'admin_not_configured',
      });
    }
  });

  it('/metrics and /health need no key, even without ADMIN_API_KEY', async () => {
    for (const target of [api, unconfigured]) {
      expect((await target.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(200);
      expect((await target.app.inject({ method: 'GET', url: '/health' })).statusCode).toBe(200);
    }
  });

  it('failed admin keys count against the unauthenticated window (10/s): a burst gets 429', async () => {
    await withApi({}, async (strict) => {
      // 25 quick attempts span at most two 1 s windows, so at most 20 can be answered 401.
      const replies = [];
      for (let i = 0; i < 25; i++) {
        replies.push(
          await strict.app.inject({
            url: '/admin/health',
            headers: { 'x-admin-api-key': `wrong-key-${i}-0123456789` },
          }),
        );
      }
      const limited = replies.filter((r) => r.statusCode === 429);
      expect(replies.filter((r) => r.statusCode === 401).length).toBeLessThanOrEqual(20);
      expect(limited.length).toBeGreaterThanOrEqual(5);
      expect(limited[0]?.json()).toEqual({
        success: false,
        error: 'Rate limit exceeded',
        code: 'rate_limited',
      });
      expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    });
  });
});
