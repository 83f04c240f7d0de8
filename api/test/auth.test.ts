import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { spawnRedis } from '@voicegw/tools';
import type { InjectOptions } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, liveNode, seedSession, useApi, withApi, type TestApi } from './helpers.js';

interface App {
  readonly appId: string;
  readonly apiKey: string;
  readonly headers: Record<string, string>;
}

/** Creates an app through the admin API, as an operator would. */
async function createApp(api: TestApi, config: Record<string, unknown> = {}): Promise<App> {
  const appId = `app_${randomBytes(4).toString('hex')}`;
  const apiKey = `key-${randomBytes(12).toString('hex')}`;
  const res = await api.app.inject({
    method: 'POST',
    url: `/admin/apps/${appId}`,
    headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
    payload: JSON.stringify({ api_key: apiKey, ...config }),
  });
  expect(res.statusCode).toBe(200);
  return { appId, apiKey, headers: { 'x-app-id': appId, 'x-api-key': apiKey } };
}

const adminCall = (api: TestApi, method: 'POST' | 'DELETE', appId: string, body?: unknown) =>
  api.app.inject({
    method,
    url: `/admin/apps/${appId}`,
    headers: {
      'x-admin-api-key': ADMIN_KEY,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });

/** An application route and the status it answers to an authenticated caller. */
interface Route {
  readonly name: string;
  readonly ok: number;
  options(api: TestApi, app: App): Promise<InjectOptions>;
}

const ROUTES: Route[] = [
  {
    name: 'POST /api/v1/sessions/{id}/commands/answer',
    ok: 202,
    async options(api, app) {
      const session = await seedSession(api, app, await liveNode(api));
      return { method: 'POST', url: `/api/v1/sessions/${session}/commands/answer` };
    },
  },
  {
    name: 'GET /api/v1/conferences',
    ok: 200,
    options: async () => ({ method: 'GET', url: '/api/v1/conferences' }),
  },
];

const call = async (
  api: TestApi,
  route: Route,
  app: App,
  headers: Record<string, string | undefined>,
  extra: Partial<InjectOptions> = {},
) => {
  const options = await route.options(api, app);
  const res = await api.app.inject({
    ...options,
    ...extra,
    headers: Object.fromEntries(
      Object.entries(headers).filter((e): e is [string, string] => e[1] !== undefined),
    ),
  });
  return { status: res.statusCode, body: res.json<unknown>(), headers: res.headers };
};

const refusal = (status: number, error: string, code: string) => ({
  status,
  body: { success: false, error, code },
});

/** Waits, if needed, so that the next few requests fall into one fixed window. */
async function atWindowStart(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await sleep(left + 5);
}

describe('application authentication', () => {
  // Many refusals in a row: lift the unauthenticated limit, which has tests of its own below.
  const api = useApi({ RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '100000' });
  let app: App;
  let other: App;

  beforeAll(async () => {
    [app, other] = [await createApp(api), await createApp(api)];
  });

  describe.each(ROUTES)('$name', (route) => {
    it('valid credentials are accepted', async () => {
      const got = await call(api, route, app, app.headers);
      expect(got.status).toBe(route.ok);
    });

    it.each([
      ['is missing', { 'x-app-id': undefined }],
      ['is empty', { 'x-app-id': '' }],
      ['is missing and so is the key', { 'x-app-id': undefined, 'x-api-key': undefined }],
    ])('X-App-ID that %s answers 400 Missing X-App-ID header', async (_name, headers) => {
      const got = await call(api, route, app, { ...app.headers, ...headers });
      expect({ status: got.status, body: got.body }).toEqual(
        refusal(400, 'Missing X-App-ID header', 'missing_app_id'),
      );
    });

    it.each([
      ['65 characters', 'a'.repeat(65)],
      ['a dot', 'my.app'],
      ['a space', 'my app'],
      ['a slash', 'my/app'],
      ['a non-ASCII letter', 'appé'],
    ])('X-App-ID with %s answers 400 Invalid X-App-ID format', async (_name, appId) => {
      const got = await call(api, route, app, { 'x-app-id': appId, 'x-api-key': app.apiKey });
      expect({ status: got.status, body: got.body }).toEqual(
        refusal(400, 'Invalid X-App-ID format', 'invalid_app_id'),
      );
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
    ])('an API key that is %s answers 401 Missing API key', async (_name, key) => {
      const got = await call(api, route, app, { 'x-app-id': app.appId, 'x-api-key': key });
      expect({ status: got.status, body: got.body }).toEqual(
        refusal(401, 'Missing API key', 'missing_api_key'),
      );
    });

    it('a wrong API key answers 401 Invalid API key', async () => {
      const got = await call(api, route, app, { ...app.headers, 'x-api-key': `${app.apiKey}x` });
      expect({ status: got.status, body: got.body }).toEqual(
        refusal(401, 'Invalid API key', 'invalid_api_key'),
      );
    });

    it("another app's API key answers 401 Invalid API key", async () => {
      const got = await call(api, route, app, { ...app.headers, 'x-api-key': other.apiKey });
      expect({ status: got.status, body: got.body }).toEqual(
        refusal(401, 'Invalid API key', 'invalid_api_key'),
      );
    });

    it('an unknown app (even with a 64-character id) answers 401 Invalid API key', async () => {
      for (const appId of ['no_such_app', 'b'.repeat(64)]) {
        const got = await call(api, route, app, { 'x-app-id': appId, 'x-api-key': app.apiKey });
        expect({ status: got.status, body: got.body }).toEqual(
          refusal(401, 'Invalid API key', 'invalid_api_key'),
        );
      }
    });
  });

  it("a deleted app's key is refused at once, even though it was just cached", async () => {
    const doomed = await createApp(api);
    const route = ROUTES[1]!;
    expect((await call(api, route, doomed, doomed.headers)).status).toBe(200);
    expect((await adminCall(api, 'DELETE', doomed.appId)).statusCode).toBe(200);
    const got = await call(api, route, doomed, doomed.headers);
    expect({ status: got.status, body: got.body }).toEqual(
      refusal(401, 'Invalid API key', 'invalid_api_key'),
    );
  });

  it('a rotated key takes effect at once: the old key is refused, the new one accepted', async () => {
    const rotated = await createApp(api);
    const route = ROUTES[1]!;
    expect((await call(api, route, rotated, rotated.headers)).status).toBe(200);
    const newKey = `new-${randomBytes(12).toString('hex')}`;
    expect((await adminCall(api, 'POST', rotated.appId, { api_key: newKey })).statusCode).toBe(200);
    expect((await call(api, route, rotated, rotated.headers)).status).toBe(401);
    const fresh = { ...rotated.headers, 'x-api-key': newKey };
    expect((await call(api, route, rotated, fresh)).status).toBe(200);
  });
});

describe('Redis unreachable while validating the key', () => {
  it('answers 500 Internal error validating API key', async () => {
    const redis = await spawnRedis({ appendOnly: false });
    await withApi({ REDIS_URL: redis.url, REDIS_COMMAND_TIMEOUT_MS: '300' }, async (api) => {
      const app = await createApp(api);
      await redis.stop();
      const route = ROUTES[1]!;
      const got = await call(api, route, app, app.headers);
      expect({ status: got.status, body: got.body }).toEqual(
        refusal(500, 'Internal error validating API key', 'auth_backend_failed'),
      );
      // Checks that need no store still answer as usual.
      const missing = await call(api, route, app, { 'x-api-key': app.apiKey });
      expect(missing.status).toBe(400);
    }).finally(() => redis.stop());
  });
});

describe('rate limits', () => {
  const api = useApi();

  it('the 11th failing request within one second answers 429 with Retry-After', async () => {
    const app = await createApp(api);
    const route = ROUTES[1]!;
    const client = { remoteAddress: '203.0.113.10' };
    await atWindowStart(1000, 300);
    const failures = [];
    for (let i = 0; i < 5; i++) failures.push(await call(api, route, app, {}, client));
    for (let i = 0; i < 5; i++) {
      failures.push(await call(api, route, app, { ...app.headers, 'x-api-key': 'guess' }, client));
    }
    expect(failures.map((f) => f.status)).toEqual([...Array(5).fill(400), ...Array(5).fill(401)]);

    const eleventh = await call(api, route, app, { ...app.headers, 'x-api-key': 'guess' }, client);
    expect({ status: eleventh.status, body: eleventh.body }).toEqual(
      refusal(429, 'Rate limit exceeded', 'rate_limited'),
    );
    expect(eleventh.headers['retry-after']).toBe('1');

    // The window is per client IP: another client is still only refused for its bad key.
    const elsewhere = { remoteAddress: '203.0.113.11' };
    const bystander = await call(api, route, app, { ...app.headers, 'x-api-key': 'x' }, elsewhere);
    expect(bystander.status).toBe(401);
  });

  it.each(ROUTES)(
    'an app with rate_limit 3 gets 429 with Retry-After on its 4th request in a minute ($name)',
    async (route) => {
      const app = await createApp(api, { rate_limit: 3 });
      await atWindowStart(60_000, 2000);
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await call(api, route, app, app.headers)).status);
      expect(statuses).toEqual([route.ok, route.ok, route.ok]);

      const fourth = await call(api, route, app, app.headers);
      expect({ status: fourth.status, body: fourth.body }).toEqual(
        refusal(429, 'Rate limit exceeded', 'rate_limited'),
      );
      const retryAfter = Number(fourth.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);

      // The limit is the app's own: another app is not held up by it.
      const other = await createApp(api, { rate_limit: 3 });
      expect((await call(api, route, other, other.headers)).status).toBe(route.ok);
    },
  );

  it('rate_limit 0 means the default of 100 requests per minute', async () => {
    const app = await createApp(api, { rate_limit: 0 });
    const route = ROUTES[1]!;
    await atWindowStart(60_000, 5000);
    const statuses = new Set<number>();
    for (let i = 0; i < 100; i++) statuses.add((await call(api, route, app, app.headers)).status);
    expect([...statuses]).toEqual([200]);
    expect((await call(api, route, app, app.headers)).status).toBe(429);
  });
});
