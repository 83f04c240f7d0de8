import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, useTenant, json, useApi } from './helpers.js';

const api = useApi();
const tenant = useTenant(api);
let port: number;

beforeAll(async () => {
  const url = new URL(await api.app.listen({ port: 0, host: '127.0.0.1' }));
  port = Number(url.port);
});

const admin = { 'x-admin-api-key': ADMIN_KEY };

/** Sends raw bytes over one connection and returns everything the server answered. */
function raw(request: string): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) as unknown });
    });
    socket.end(request);
  });
}

describe('errors raised before any route runs have the contract shape', () => {
  it('bad %-encoding in the path answers 400', async () => {
    for (const headers of [admin, {}]) {
      const res = await api.app.inject({ url: '/admin/apps/%ff%fe', headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: 'Invalid URL: malformed percent-encoding',
        code: 'invalid_url',
      });
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('a path parameter over 100 characters answers 414', async () => {
    const res = await api.app.inject({ url: `/admin/apps/${'a'.repeat(101)}`, headers: admin });
    expect(res.statusCode).toBe(414);
    expect(res.json()).toEqual({
      success: false,
      error: 'Path parameter too long',
      code: 'param_too_long',
    });
  });

  it("headers over node's limit answer 431 from the parser, in the contract shape", async () => {
    const res = await raw(
      `GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res).toEqual({
      status: 431,
      body: { success: false, error: 'Request headers too large', code: 'headers_too_large' },
    });
  });

  it('bytes that are not HTTP answer 400', async () => {
    expect(await raw('HELLO\r\n\r\n')).toEqual({
      status: 400,
      body: { success: false, error: 'Malformed HTTP request', code: 'malformed_request' },
    });
  });

  it('an unknown HTTP method on a known path answers 404 in the shape', async () => {
    const res = await api.app.inject({ method: 'PROPFIND', url: '/health' });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: 'Route not found',
      code: 'route_not_found',
    });
  });

  it.each([
    [
      413,
      'application/json',
      `{"webhook_url":"${'a'.repeat(1024 * 1024)}"}`,
      'Request body too large',
      'body_too_large',
    ],
    [415, 'text/plain', 'hi', 'Content-Type must be application/json', 'unsupported_media_type'],
    [400, 'application/json', '{"webhook_url":', 'Invalid request body', 'invalid_body'],
  ])(
    'a body the parser refuses answers %i in the shape (%s)',
    async (status, type, payload, error, code) => {
      const res = await api.app.inject({
        method: 'POST',
        url: '/admin/apps/app_big',
        headers: { ...admin, 'content-type': type },
        payload,
      });
      expect([res.statusCode, res.json()]).toEqual([status, { success: false, error, code }]);
    },
  );
});

describe('a body that does not match its Content-Length', () => {
  it('answers 400 saying so, in the shape (not 415)', async () => {
    const expected = {
      status: 400,
      body: {
        success: false,
        error: 'Request body length does not match Content-Length',
        code: 'body_length_mismatch',
      },
    };
    const injected = await api.app.inject({
      method: 'POST',
      url: '/admin/apps/app_len',
      headers: { ...admin, ...json, 'content-length': '50' },
      payload: '{"api_key":"k"}',
    });
    expect({ status: injected.statusCode, body: injected.json() }).toEqual(expected);
  });
});

describe('JSON nesting is bounded', () => {
  const dial = (depth: number) =>
    api.app.inject({
      method: 'POST',
      url: '/api/v1/dial',
      headers: { ...tenant.headers, ...json },
      payload: `{"to":"0501234567","from":"0722000000","metadata":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`,
    });

  it('dial metadata 40 deep answers 400, 30 deep gets past the parser', async () => {
    const deep = await dial(40);
    expect([deep.statusCode, deep.json()]).toEqual([
      400,
      { success: false, error: 'Invalid request body', code: 'invalid_body' },
    ]);
    const shallow = await dial(30);
    expect(shallow.json()).not.toMatchObject({ code: 'invalid_body' });
    expect(shallow.statusCode).toBeLessThan(500);
  });
});

describe('numeric parameters are bounded', () => {
  it.each(['1e99', '1'.repeat(105), '9007199254740992', '-1', '1.5', 'NaN'])(
    'dead-letters offset=%s answers 400',
    async (offset) => {
      const res = await api.app.inject({
        url: `/admin/apps/${tenant.appId}/dead-letters?offset=${offset}`,
        headers: admin,
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: expect.stringMatching(/offset/),
        code: 'validation_failed',
      });
    },
  );

  it('a dead-letters offset past the end is an empty page', async () => {
    const res = await api.app.inject({
      url: `/admin/apps/${tenant.appId}/dead-letters?offset=9007199254739991&limit=1000`,
      headers: admin,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      app_id: tenant.appId,
      total: 0,
      dead_letters: [],
    });
  });

  it('a conference list limit of 1e9 is clamped, 1e99 and 1e400 are invalid', async () => {
    const clamped = await api.app.inject({
      url: '/api/v1/conferences?limit=1e9',
      headers: tenant.headers,
    });
    expect(clamped.statusCode).toBe(200);
    for (const limit of ['1e99', '1e400']) {
      const invalid = await api.app.inject({
        url: `/api/v1/conferences?limit=${limit}`,
        headers: tenant.headers,
      });
      expect([invalid.statusCode, invalid.json()]).toEqual([
        400,
        { success: false, error: 'Invalid limit', code: 'invalid_limit' },
      ]);
    }
  });

  it('playback/seek position_ms beyond a day either way answers 400', async () => {
    for (const position of [86_400_001, -86_400_001, 1e99]) {
      const res = await api.app.inject({
        method: 'POST',
        url: '/api/v1/sessions/abcde-00000000-0000-0000-0000-000000000000/commands/playback/seek',
        headers: { ...tenant.headers, ...json },
        payload: JSON.stringify({ position_ms: position }),
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: expect.stringMatching(/position_ms/),
        code: 'validation_failed',
      });
    }
  });
});
