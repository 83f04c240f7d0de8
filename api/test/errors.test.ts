import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ERRORS, GatewayError } from '../src/errors/catalogue.js';
import { startApi, useApi, useTenant } from './helpers.js';

const api = useApi();
const tenant = useTenant(api);

describe('error responses', () => {
  it('an unknown route answers a JSON 404', async () => {
    for (const url of ['/nope', '/api/v1/nope', '/api/v2/conferences']) {
      const res = await api.app.inject({ method: 'GET', url, headers: tenant.headers });
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual({
        success: false,
        error: 'Route not found',
        code: 'route_not_found',
      });
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
    expect(res.json()).toEqual({
      success: false,
      error: 'Invalid request body',
      code: 'invalid_body',
    });
  });
});

describe('error codes', () => {
  it('every catalogue entry has a code of its own, in lowercase snake_case', () => {
    const names = Object.keys(ERRORS);
    for (const name of names) expect(name).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    expect(ERROR_CODES).toHaveLength(names.length);
    expect(new Set(ERROR_CODES).size).toBe(names.length);
    for (const code of ERROR_CODES) expect(code).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
  });

  it('an entry answers its name in lowercase, the dial codes clients know among them', () => {
    expect(new GatewayError('CID_NOT_ALLOWED').body).toEqual({
      success: false,
      error: 'from is not on the caller-ID allow-list',
      code: 'cid_not_allowed',
    });
    expect(new GatewayError('NO_FS_CAPACITY').code).toBe('no_fs_capacity');
    expect(new GatewayError('ROUTE_NOT_FOUND').code).toBe('route_not_found');
  });

  it("a message or fields of an error's own keep the entry's status and code", () => {
    const invalid = new GatewayError('VALIDATION_FAILED', { message: 'to is required' });
    expect([invalid.statusCode, invalid.body]).toEqual([
      400,
      { success: false, error: 'to is required', code: 'validation_failed' },
    ]);
    const missing = new GatewayError('APP_NOT_FOUND', { body: { app_id: 'ghost' } });
    expect([missing.statusCode, missing.body]).toEqual([
      404,
      { success: false, error: 'App not found', code: 'app_not_found', app_id: 'ghost' },
    ]);
  });
});

describe('a request that reaches a closing api', () => {
  it('answers 503 shutting_down in the shape and closes the connection', async () => {
    const closing = await startApi();
    await closing.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = closing.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A request begun: the connection is not idle, so closing waits for its answer.
    socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    const closed = closing.close();
    await expect.poll(() => closing.app.server.listening).toBe(false);
    socket.write('\r\n');
    await once(socket, 'close');
    await closed;

    const [head = '', body = ''] = Buffer.concat(chunks).toString().split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe('HTTP/1.1 503 Service Unavailable');
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({
      success: false,
      error: 'Server is shutting down; retry with backoff',
      code: 'shutting_down',
    });
  });
});
