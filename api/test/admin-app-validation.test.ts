import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { adminRequest, ADMIN_KEY, useApi } from './helpers.js';

const api = useApi();

const newAppId = () => `app_${randomBytes(4).toString('hex')}`;

const admin = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, raw?: string) =>
  adminRequest(api, method, url, body, raw);

async function expectRejected(
  res: Awaited<ReturnType<typeof admin>>,
  status: number,
  error: string,
  code: string,
) {
  expect({ status: res.statusCode, body: res.json() }).toEqual({
    status,
    body: { success: false, error, code },
  });
}

const JSON_TYPE = 'application/json';
const BAD_BODY = 'Invalid request body';
const NOT_JSON = 'Content-Type must be application/json';

describe('POST /admin/apps/{app_id} rejections (400)', () => {
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
    await expectRejected(
      await admin('POST', `/admin/apps/${appId}`, body),
      400,
      message,
      'validation_failed',
    );
    // Nothing was created.
    expect((await admin('GET', `/admin/apps/${appId}`)).statusCode).toBe(404);
  });

  // [name, content-type, raw payload, status, error, code]: undefined leaves the header or body
  // out.
  it.each<[string, string | undefined, string | undefined, number, string, string]>([
    [
      'unparseable JSON answers 400 Invalid request body',
      JSON_TYPE,
      '{"api_key": ',
      400,
      BAD_BODY,
      'invalid_body',
    ],
    [
      'a missing body answers 415 (send {} to create with defaults)',
      undefined,
      undefined,
      415,
      NOT_JSON,
      'unsupported_media_type',
    ],
    [
      'an empty JSON body answers 400 Invalid request body',
      JSON_TYPE,
      '',
      400,
      BAD_BODY,
      'invalid_body',
    ],
    [
      'a body that is not JSON answers 415',
      'text/plain',
      'api_key=x',
      415,
      NOT_JSON,
      'unsupported_media_type',
    ],
  ])('%s', async (_name, contentType, payload, status, error, code) => {
    const res = await api.app.inject({
      method: 'POST',
      url: `/admin/apps/${newAppId()}`,
      headers: {
        'x-admin-api-key': ADMIN_KEY,
        ...(contentType === undefined ? {} : { 'content-type': contentType }),
      },
      ...(payload === undefined ? {} : { payload }),
    });
    await expectRejected(res, status, error, code);
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
        'validation_failed',
      );
    });
  }
});
