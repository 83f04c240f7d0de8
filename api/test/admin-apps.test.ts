import { randomBytes } from 'node:crypto';
import { EVENT_NAMES } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startApi, type TestApi } from './helpers.js';

let api: TestApi;

beforeAll(async () => {
  api = await startApi();
});
afterAll(() => api.close());

const newAppId = () => `app_${randomBytes(4).toString('hex')}`;

function admin(method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, raw?: string) {
  const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  return api.app.inject({
    method,
    url,
    headers: {
      'x-admin-api-key': ADMIN_KEY,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload }),
  });
}

const rejection = (status: number, error: string) => ({ status, body: { success: false, error } });

async function expectRejected(
  res: Awaited<ReturnType<typeof admin>>,
  status: number,
  error: string,
) {
  expect({ status: res.statusCode, body: res.json() }).toEqual(rejection(status, error));
}

describe('POST /admin/apps/{app_id}', () => {
  it('creates an app and answers with its id, webhook_url and rate_limit', async () => {
    const appId = newAppId();
    const res = await admin('POST', `/admin/apps/${appId}`, {
      webhook_url: 'https://93.184.216.34/hook',
      api_key: 'a-key-of-sixteen-chars',
      rate_limit: 500,
      events: ['call.new', 'call.hangup'],
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      app_id: appId,
      webhook_url: 'https://93.184.216.34/hook',
      rate_limit: 500,
    });
  });

  it('GET returns the whole configuration with a generated webhook secret', async () => {
    const appId = newAppId();
    const before = Date.now();
    await admin('POST', `/admin/apps/${appId}`, {
      webhook_url: '',
      api_key: 'another-key-0123456789',
      rate_limit: 0,
      events: ['dtmf'],
    });
    const res = await admin('GET', `/admin/apps/${appId}`);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ created_at: string; webhook_secret: string }>();
    expect(body).toEqual({
      success: true,
      app_id: appId,
      webhook_url: '',
      api_key: 'another-key-0123456789',
      rate_limit: 0,
      events: ['dtmf'],
      webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(body.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Buffer.from(body.webhook_secret.slice(6), 'base64')).toHaveLength(24);
  });

  it('an empty object creates an app with a generated API key, readable through GET', async () => {
    const appId = newAppId();
    const res = await admin('POST', `/admin/apps/${appId}`, {});
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, app_id: appId, webhook_url: '', rate_limit: 0 });
    const got = (await admin('GET', `/admin/apps/${appId}`)).json();
    expect(got.api_key).toMatch(/^vgk_[A-Za-z0-9_-]{32}$/);
    expect(got.events).toEqual([]);
  });

  it('two created apps get different generated keys and secrets', async () => {
    const [a, b] = [newAppId(), newAppId()];
    await admin('POST', `/admin/apps/${a}`, {});
    await admin('POST', `/admin/apps/${b}`, {});
    const [ga, gb] = [
      (await admin('GET', `/admin/apps/${a}`)).json(),
      (await admin('GET', `/admin/apps/${b}`)).json(),
    ];
    expect(ga.api_key).not.toBe(gb.api_key);
    expect(ga.webhook_secret).not.toBe(gb.webhook_secret);
  });

  it('overwrite replaces the fields sent and keeps the omitted ones, created_at included', async () => {
    const appId = newAppId();
    await admin('POST', `/admin/apps/${appId}`, {
      webhook_url: 'https://93.184.216.34/a',
      api_key: 'first-key-0123456789',
      rate_limit: 7,
      events: ['call.new'],
    });
    const first = (await admin('GET', `/admin/apps/${appId}`)).json();
    const res = await admin('POST', `/admin/apps/${appId}`, { rate_limit: 9 });
    expect(res.json()).toEqual({
      success: true,
      app_id: appId,
      webhook_url: 'https://93.184.216.34/a',
      rate_limit: 9,
    });
    const second = (await admin('GET', `/admin/apps/${appId}`)).json();
    expect(second).toEqual({ ...first, rate_limit: 9 });
  });

  it('overwrite with an empty webhook_url and empty events disables webhooks and the whitelist', async () => {
    const appId = newAppId();
    await admin('POST', `/admin/apps/${appId}`, {
      webhook_url: 'https://93.184.216.34/a',
      events: ['call.new'],
    });
    await admin('POST', `/admin/apps/${appId}`, { webhook_url: '', events: [] });
    const got = (await admin('GET', `/admin/apps/${appId}`)).json();
    expect(got).toMatchObject({ webhook_url: '', events: [] });
  });

  it('a posted webhook_secret rotates the secret', async () => {
    const appId = newAppId();
    await admin('POST', `/admin/apps/${appId}`, {});
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    expect(
      (await admin('POST', `/admin/apps/${appId}`, { webhook_secret: secret })).statusCode,
    ).toBe(200);
    expect((await admin('GET', `/admin/apps/${appId}`)).json().webhook_secret).toBe(secret);
  });

  it('every canonical event name is accepted', async () => {
    const appId = newAppId();
    const res = await admin('POST', `/admin/apps/${appId}`, { events: [...EVENT_NAMES] });
    expect(res.statusCode).toBe(200);
    expect((await admin('GET', `/admin/apps/${appId}`)).json().events).toEqual([...EVENT_NAMES]);
  });

  it('accepts the longest app_id (64 characters) and the bounds of rate_limit', async () => {
    const appId = `A-${'z_9'.repeat(20)}xy`;
    expect(appId).toHaveLength(64);
    expect((await admin('POST', `/admin/apps/${appId}`, { rate_limit: 10_000 })).statusCode).toBe(
      200,
    );
    expect((await admin('POST', `/admin/apps/${appId}`, { rate_limit: 0 })).statusCode).toBe(200);
  });

  it('accepts an API key of exactly 16 printable characters', async () => {
    const res = await admin('POST', `/admin/apps/${newAppId()}`, { api_key: '!#$%&()*+,-./:;<' });
    expect(res.statusCode).toBe(200);
  });

  describe('rejections (400)', () => {
    const cases: [string, unknown, string][] = [
      [
        'api_key shorter than 16',
        { api_key: 'short-key-15chr' },
        'api_key must NOT have fewer than 16 characters',
      ],
      [
        'api_key with a space',
        { api_key: 'has a space in the key' },
        'api_key has an invalid format',
      ],
      [
        'api_key with a control character',
        { api_key: 'tab\tinside-the-key-x' },
        'api_key has an invalid format',
      ],
      [
        'api_key with a non-ASCII character',
        { api_key: 'ключ-ключ-ключ-ключ' },
        'api_key has an invalid format',
      ],
      ['api_key not a string', { api_key: 1234567890123456 }, 'api_key must be string'],
      ['rate_limit above 10000', { rate_limit: 10_001 }, 'rate_limit must be <= 10000'],
      ['rate_limit below 0', { rate_limit: -1 }, 'rate_limit must be >= 0'],
      ['rate_limit not an integer', { rate_limit: 1.5 }, 'rate_limit must be integer'],
      ['rate_limit as a string', { rate_limit: '100' }, 'rate_limit must be integer'],
      [
        'an unknown event name',
        { events: ['call.new', 'call.bogus'] },
        'events.1 must be equal to one of the allowed values',
      ],
      [
        'a non-canonical spelling of an event',
        { events: ['CALL.NEW'] },
        'events.0 must be equal to one of the allowed values',
      ],
      [
        'a duplicated event name',
        { events: ['dtmf', 'dtmf'] },
        'events must NOT have duplicate items (items ## 0 and 1 are identical)',
      ],
      ['events not an array', { events: 'call.new' }, 'events must be array'],
      [
        'webhook_secret without the whsec_ prefix',
        { webhook_secret: randomBytes(24).toString('base64') },
        'webhook_secret has an invalid format',
      ],
      [
        'webhook_secret too short',
        { webhook_secret: 'whsec_abc' },
        'webhook_secret has an invalid format',
      ],
      [
        'an unknown field',
        { api_kye: 'a-key-of-sixteen-chars' },
        "body must not have property 'api_kye'",
      ],
      ['a body that is an array', [], 'body must be object'],
      ['a body that is a string', 'webhook_url', 'body must be object'],
      ['a body that is null', null, 'body must be object'],
    ];
    it.each(cases)('%s', async (_name, body, message) => {
      const appId = newAppId();
      await expectRejected(await admin('POST', `/admin/apps/${appId}`, body), 400, message);
      // Nothing was created.
      expect((await admin('GET', `/admin/apps/${appId}`)).statusCode).toBe(404);
    });

    it('unparseable JSON answers 400 Invalid request body', async () => {
      const res = await admin('POST', `/admin/apps/${newAppId()}`, undefined, '{"api_key": ');
      await expectRejected(res, 400, 'Invalid request body');
    });

    it('a missing body answers 415 (send {} to create with defaults)', async () => {
      const res = await api.app.inject({
        method: 'POST',
        url: `/admin/apps/${newAppId()}`,
        headers: { 'x-admin-api-key': ADMIN_KEY },
      });
      await expectRejected(res, 415, 'Content-Type must be application/json');
    });

    it('an empty JSON body answers 400 Invalid request body', async () => {
      const res = await admin('POST', `/admin/apps/${newAppId()}`, undefined, '');
      await expectRejected(res, 400, 'Invalid request body');
    });

    it('a body that is not JSON answers 415', async () => {
      const res = await api.app.inject({
        method: 'POST',
        url: `/admin/apps/${newAppId()}`,
        headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'text/plain' },
        payload: 'api_key=x',
      });
      await expectRejected(res, 415, 'Content-Type must be application/json');
    });

    it('a rejected overwrite leaves the configuration unchanged', async () => {
      const appId = newAppId();
      await admin('POST', `/admin/apps/${appId}`, {
        api_key: 'kept-key-0123456789',
        rate_limit: 5,
      });
      const before = (await admin('GET', `/admin/apps/${appId}`)).json();
      const res = await admin('POST', `/admin/apps/${appId}`, { rate_limit: 6, api_key: 'short' });
      expect(res.statusCode).toBe(400);
      expect((await admin('GET', `/admin/apps/${appId}`)).json()).toEqual(before);
    });
  });
});

describe('app_id in the path', () => {
  const bad: [string, string, string][] = [
    ['65 characters', 'a'.repeat(65), 'app_id must NOT have more than 64 characters'],
    ['a dot', 'my.app', 'app_id has an invalid format'],
    ['a space', 'my%20app', 'app_id has an invalid format'],
    ['a colon', 'my:app', 'app_id has an invalid format'],
  ];
  for (const method of ['POST', 'GET', 'DELETE'] as const) {
    it.each(bad)(`${method} with %s answers 400`, async (_name, appId, message) => {
      await expectRejected(
        await admin(method, `/admin/apps/${appId}`, method === 'POST' ? {} : undefined),
        400,
        message,
      );
    });
  }
});

describe('GET and DELETE /admin/apps/{app_id}', () => {
  it('GET of an unknown app answers 404 with the app_id', async () => {
    const appId = newAppId();
    const res = await admin('GET', `/admin/apps/${appId}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, app_id: appId, error: 'App not found' });
  });

  it('DELETE removes the app, its caller IDs and its DID routes', async () => {
    const appId = newAppId();
    await admin('POST', `/admin/apps/${appId}`, {});
    await api.app.inject({
      method: 'PUT',
      url: `/admin/apps/${appId}/cids`,
      headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      payload: JSON.stringify(['0501234567']),
    });
    await api.app.inject({
      method: 'PUT',
      url: `/admin/apps/${appId}/dids`,
      headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
      payload: JSON.stringify(['0721234567']),
    });
    const res = await admin('DELETE', `/admin/apps/${appId}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, app_id: appId });
    expect((await admin('GET', `/admin/apps/${appId}`)).statusCode).toBe(404);
    expect(await api.redis.exists(api.keys.appCids(appId), api.keys.appDids(appId))).toBe(0);
    expect(await api.redis.hget(api.keys.didRoutes(), '0721234567')).toBeNull();
  });

  it('DELETE of an unknown app answers 404', async () => {
    const appId = newAppId();
    const res = await admin('DELETE', `/admin/apps/${appId}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, app_id: appId, error: 'App not found' });
  });

  it('a deleted app can be created again, with a new key and secret', async () => {
    const appId = newAppId();
    await admin('POST', `/admin/apps/${appId}`, {});
    const first = (await admin('GET', `/admin/apps/${appId}`)).json();
    await admin('DELETE', `/admin/apps/${appId}`);
    expect((await admin('POST', `/admin/apps/${appId}`, {})).statusCode).toBe(200);
    const second = (await admin('GET', `/admin/apps/${appId}`)).json();
    expect(second.api_key).not.toBe(first.api_key);
    expect(second.webhook_secret).not.toBe(first.webhook_secret);
  });

  it('every write announces the app on the invalidation channel', async () => {
    const appId = newAppId();
    const subscriber = api.redis.duplicate();
    const announced: string[] = [];
    await subscriber.subscribe(api.keys.appsChanged());
    const got = new Promise<void>((resolve) =>
      subscriber.on('message', (_channel: string, id: string) => {
        announced.push(id);
        if (announced.length === 3) resolve();
      }),
    );
    await admin('POST', `/admin/apps/${appId}`, {});
    await admin('POST', `/admin/apps/${appId}`, { rate_limit: 3 });
    await admin('DELETE', `/admin/apps/${appId}`);
    await got;
    expect(announced).toEqual([appId, appId, appId]);
    subscriber.disconnect();
  });
});
