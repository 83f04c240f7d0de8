import { randomUUID } from 'node:crypto';
import { sessionId } from '@voicegw/shared';
import { describe, expect, it } from 'vitest';
import { sanitizeErrorMessage } from '../src/plugins/recent-errors.js';
import { ADMIN_KEY, useTenant, liveNode, useApi } from './helpers.js';

const api = useApi();
const tenant = useTenant(api);

const get = (url: string, headers: Record<string, string> = { 'x-admin-api-key': ADMIN_KEY }) =>
  api.app.inject({ method: 'GET', url, headers });

const ISO_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

interface RecentError {
  trace_id: string;
  [field: string]: unknown;
}

describe('GET /admin/health', () => {
  it('answers ok with the time, Redis up and the count of live media nodes', async () => {
    const before = (await get('/admin/health')).json<{ media_nodes: number }>();
    await liveNode(api);
    await liveNode(api);
    const res = await get('/admin/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'ok',
      timestamp: expect.stringMatching(ISO_UTC),
      redis: 'up',
      media_nodes: before.media_nodes + 2,
      degraded_media_nodes: [],
    });
  });

  it('a live media node without its FreeSWITCH, or with an unusable dial target, makes it degraded', async () => {
    const name = `node-${randomUUID()}`;
    const prefix = await liveNode(api, { freeswitch: 'unreachable', outbound_capacity: 0 }, name);
    const res = await get('/admin/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      status: 'degraded',
      redis: 'up',
      degraded_media_nodes: [{ name, prefix, freeswitch: 'unreachable' }],
    });
    await liveNode(api, { freeswitch: 'dial_target_unusable', outbound_capacity: 0 }, name);
    expect((await get('/admin/health')).json()).toMatchObject({
      status: 'degraded',
      degraded_media_nodes: [{ name, prefix, freeswitch: 'dial_target_unusable' }],
    });
    await liveNode(api, { freeswitch: 'ok' }, name);
    expect((await get('/admin/health')).json()).toMatchObject({
      status: 'ok',
      degraded_media_nodes: [],
    });
  });

  it('a node whose heartbeat has expired is not counted', async () => {
    const before = (await get('/admin/health')).json<{ media_nodes: number }>().media_nodes;
    const prefix = await liveNode(api);
    expect((await get('/admin/health')).json()).toMatchObject({ media_nodes: before + 1 });
    await api.redis.del(api.keys.nodeHeartbeat(prefix));
    expect((await get('/admin/health')).json()).toMatchObject({ media_nodes: before });
  });
});

describe('GET /admin/recent-errors', () => {
  it('lists a 5xx with its trace id, method, path, route pattern, status, app and message', async () => {
    // A session hash that is not a hash makes the command script fail inside Redis: a real 500.
    const node = await liveNode(api);
    const session = sessionId(node, randomUUID());
    await api.redis.set(api.keys.session(session), 'not a hash');
    const res = await api.app.inject({
      method: 'POST',
      url: `/api/v1/sessions/${session}/commands/answer?token=query-secret`,
      headers: { ...tenant.headers, 'x-request-id': `trace-${randomUUID()}` },
    });
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      success: false,
      error: 'Internal server error',
      code: 'internal',
    });

    const list = await get('/admin/recent-errors');
    expect(list.statusCode).toBe(200);
    const body = list.json<{ total: number; errors: RecentError[] }>();
    expect(body.total).toBe(body.errors.length);
    const entry = body.errors.find((e) => e.trace_id === res.headers['x-request-id']);
    expect(entry).toEqual({
      timestamp: expect.stringMatching(ISO_UTC),
      trace_id: res.headers['x-request-id'],
      method: 'POST',
      path: `/api/v1/sessions/${session}/commands/answer`,
      pattern: '/api/v1/sessions/:uuid/commands/answer',
      status_code: 500,
      app_id: tenant.appId,
      error: expect.stringMatching(/WRONGTYPE/),
    });
    const message = String(entry!.error);
    expect(message.length).toBeLessThanOrEqual(300);
    expect(message).not.toMatch(/\n\s+at /);
    expect(message).not.toContain(tenant.apiKey);
    expect(JSON.stringify(entry)).not.toContain('query-secret');
  });

  it('lists an admin store failure (500) too, newest first', async () => {
    await api.redis.set(api.keys.app('corrupt_app'), 'not a hash');
    const res = await get('/admin/apps/corrupt_app');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      success: false,
      error: 'Failed to access the configuration store',
      code: 'admin_store_failed',
    });
    const [newest] = (await get('/admin/recent-errors')).json<{ errors: RecentError[] }>().errors;
    expect(newest).toMatchObject({
      trace_id: res.headers['x-request-id'],
      method: 'GET',
      path: '/admin/apps/corrupt_app',
      pattern: '/admin/apps/:app_id',
      status_code: 500,
    });
  });

  it('4xx answers are not listed', async () => {
    const res = await get('/admin/apps/nobody_here');
    expect(res.statusCode).toBe(404);
    const { errors } = (await get('/admin/recent-errors')).json<{ errors: RecentError[] }>();
    expect(errors.map((e) => e.trace_id)).not.toContain(res.headers['x-request-id']);
  });

  it('messages are sanitized: URL credentials and key-like values are redacted', () => {
    const error = new Error(
      'connect failed redis://user:hunter2@10.0.0.5:6379 api_key=vgk_abcdefghijklmnop secret: s3cr3t',
    );
    const message = sanitizeErrorMessage(error);
    expect(message).not.toMatch(/hunter2|vgk_abcdefghijklmnop|s3cr3t/);
    expect(message).toBe(
      'Error: connect failed redis://[redacted]@10.0.0.5:6379 api_key=[redacted] secret: [redacted]',
    );
  });
});

describe('/metrics and /health', () => {
  it('/metrics needs no key and exposes voicegw_http_requests_total', async () => {
    await api.app.inject({ method: 'GET', url: '/health' });
    const res = await api.app.inject({ method: 'GET', url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.body).toMatch(
      /^voicegw_http_requests_total\{[^}]*route="\/health",status="200"[^}]*\} \d+$/m,
    );
  });

  it('/health answers 200 {status: ok} without authentication', async () => {
    const res = await api.app.inject({ method: 'GET', url: '/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('/health is never rate limited, even once the client is', async () => {
    const attempt = () =>
      api.app.inject({
        method: 'GET',
        url: '/api/v1/conferences',
        headers: { 'x-app-id': tenant.appId, 'x-api-key': 'wrong-key-0123456789' },
        remoteAddress: '198.51.100.7',
      });
    let last = await attempt();
    for (let i = 0; i < 30 && last.statusCode !== 429; i++) last = await attempt();
    expect(last.statusCode).toBe(429);

    const health = await Promise.all(
      Array.from({ length: 50 }, () =>
        api.app.inject({ method: 'GET', url: '/health', remoteAddress: '198.51.100.7' }),
      ),
    );
    expect(health.map((r) => r.statusCode)).toEqual(Array(50).fill(200));
  });
});
