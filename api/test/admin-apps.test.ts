import { randomBytes } from 'node:crypto';
import { EVENT_NAMES } from '@voicegw/shared';
import { describe, expect, it } from 'vitest';
import { adminRequest, ADMIN_KEY, useApi } from './helpers.js';

const api = useApi();

const newAppId = () => `app_${randomBytes(4).toString('hex')}`;

const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, raw?: string) =>
  adminRequest(api, method, url, body, raw);

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
      disabled: false,
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
});

describe('GET and DELETE /admin/apps/{app_id}', () => {
  it.each(['GET', 'DELETE'] as const)(
    '%s of an unknown app answers 404 with the app_id',
    async (method) => {
      const appId = newAppId();
      const res = await admin(method, `/admin/apps/${appId}`);
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        app_id: appId,
        error: 'App not found',
        code: 'app_not_found',
      });
    },
  );

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
