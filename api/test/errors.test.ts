import { describe, expect, it } from 'vitest';
import { useApi, useTenant } from './helpers.js';

const api = useApi();
const tenant = useTenant(api);

describe('error responses', () => {
  it('an unknown route answers a JSON 404', async () => {
    for (const url of ['/nope', '/api/v1/nope', '/api/v2/conferences']) {
      const res = await api.app.inject({ method: 'GET', url, headers: tenant.headers });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({ success: false, error: 'Route not found' });
    }
  });

  it('echoes a sane X-Request-ID and generates one otherwise', async () => {
    const given = await api.app.inject({ url: '/health', headers: { 'x-request-id': 'req-42' } });
    expect(given.headers['x-request-id']).toBe('req-42');
    const generated = await api.app.inject({
      url: '/health',
      headers: { 'x-request-id': 'bad id!' },
    });
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('a prototype-poisoning body is refused as an invalid body', async () => {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v1/conferences',
      headers: { ...tenant.headers, 'content-type': 'application/json' },
      payload: '{"name":"x","__proto__":{"admin":true}}',
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: 'Invalid request body' });
  });
});
