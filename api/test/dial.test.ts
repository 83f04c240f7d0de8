import type { DialCommandMessage } from '@voicegw/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import { commandsFor, createTenant, expectMissingApiKey, json, useApiWithNode } from './helpers.js';

const { api, tenant, node } = useApiWithNode();

const FROM = '0731234567';
const TO = '0521234567';

const LANDLINE = ['02', '03', '04', '08', '09'];
const MOBILE = ['050', '051', '052', '053', '054', '055', '058'];
const VOIP = ['072', '073', '074', '076', '077', '079'];
/** A valid number: every prefix is followed by 7 digits. */
const number = (prefix: string): string => `${prefix}4567890`;

const INVALID_NUMBERS: readonly [string, string][] = [
  ['landline with 6 digits after the prefix', '02456789'],
  ['landline with 8 digits after the prefix', '0245678901'],
  ['mobile with 6 digits after the prefix', '050456789'],
  ['mobile with 8 digits after the prefix', '05045678901'],
  ['VoIP with 8 digits after the prefix', '07245678901'],
  ['prefix 01', '014567890'],
  ['prefix 05 followed by 7 digits', '054567890'],
  ['prefix 056', '0564567890'],
  ['prefix 057', '0574567890'],
  ['prefix 059', '0594567890'],
  ['prefix 071', '0714567890'],
  ['prefix 075', '0754567890'],
  ['prefix 078', '0784567890'],
  ['prefix 06', '064567890'],
  ['a letter among the digits', '05O4567890'],
  ['dashes', '050-4567890'],
  ['spaces', '050 456 7890'],
  ['the +972 international form', '+972504567890'],
  ['972 without the plus', '972504567890'],
  ['an empty string', ''],
];

beforeAll(async () => {
  const everyPrefix = [...LANDLINE, ...MOBILE, ...VOIP].map(number);
  await api.redis.sadd(api.keys.appCids(tenant.appId), FROM, ...everyPrefix);
});

const dial = (body: unknown, headers: Record<string, string> = json, who = tenant) =>
  api.app.inject({
    method: 'POST',
    url: '/api/v1/dial',
    headers: { ...who.headers, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

/** The dial command appended for one session. */
async function dialCommand(sessionUuid: string): Promise<DialCommandMessage | undefined> {
  const commands = await commandsFor(api, node.prefix);
  return commands.find(
    (c): c is DialCommandMessage => c.kind === 'dial' && c.session_id === sessionUuid,
  );
}

describe('POST /dial', () => {
  it('answers 202 dialing, creates the outbound session and enqueues the originate', async () => {
    const before = Date.now();
    const res = await dial({ to: TO, from: FROM });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({
      session_uuid: expect.stringMatching(
        new RegExp(
          `^${node.prefix}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`,
        ),
      ),
      status: 'dialing',
    });

    const hash = await api.redis.hgetall(api.keys.session(body.session_uuid));
    expect(hash).toEqual({
      app_id: tenant.appId,
      node: node.prefix,
      direction: 'outbound',
      caller_id: FROM,
      did: TO,
      created_at: expect.stringMatching(/^\d+$/),
      conf_room: '',
      conf_state: 'none',
      conf_member_id: '',
      conf_muted: '0',
      dial_status: 'dialing',
      dial_started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(hash.dial_started_at!)).toBe(Number(hash.created_at));
    expect(Number(hash.created_at)).toBeGreaterThanOrEqual(before);

    const command = await dialCommand(body.session_uuid);
    expect(command).toEqual({
      kind: 'dial',
      session_id: body.session_uuid,
      app_id: tenant.appId,
      args: { to: TO, from: FROM, timeout_sec: 30, max_duration_sec: 3600 },
      issued_at: Number(hash.created_at),
    });
  });

  it('applies the given timeout_sec and max_duration_sec to the originate', async () => {
    const res = await dial({ to: TO, from: FROM, timeout_sec: 300, max_duration_sec: 14_400 });
    expect(res.statusCode).toBe(202);
    const command = await dialCommand(res.json().session_uuid);
    expect(command?.args).toEqual({
      to: TO,
      from: FROM,
      timeout_sec: 300,
      max_duration_sec: 14_400,
    });
  });

  it('accepts the lower bounds of timeout_sec and max_duration_sec', async () => {
    const res = await dial({ to: TO, from: FROM, timeout_sec: 1, max_duration_sec: 1 });
    expect(res.statusCode).toBe(202);
    const command = await dialCommand(res.json().session_uuid);
    expect(command?.args).toMatchObject({ timeout_sec: 1, max_duration_sec: 1 });
  });

  it('stores metadata on the session and passes it in the originate', async () => {
    const metadata = { order: 'A-17', attempt: 2, tags: ['vip'], nested: { ok: true } };
    const res = await dial({ to: TO, from: FROM, metadata });
    expect(res.statusCode).toBe(202);
    const { session_uuid: id } = res.json();
    const stored = await api.redis.hget(api.keys.session(id), 'metadata');
    expect(JSON.parse(stored!)).toEqual(metadata);
    expect((await dialCommand(id))?.args.metadata).toEqual(metadata);
  });

  it.each([...LANDLINE, ...MOBILE, ...VOIP])('accepts prefix %s as to and as from', async (p) => {
    const res = await dial({ to: number(p), from: number(p) });
    expect(res.statusCode).toBe(202);
    expect((await dialCommand(res.json().session_uuid))?.args).toMatchObject({
      to: number(p),
      from: number(p),
    });
  });

  it.each(INVALID_NUMBERS)('rejects %s in to with 400', async (_what, bad) => {
    const res = await dial({ to: bad, from: FROM });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: 'to has an invalid format',
      code: 'validation_failed',
    });
  });

  it.each(INVALID_NUMBERS)('rejects %s in from with 400', async (_what, bad) => {
    const res = await dial({ to: TO, from: bad });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: 'from has an invalid format',
      code: 'validation_failed',
    });
  });

  it.each([
    ['to is missing', { from: FROM }, 'to is required'],
    ['the body is empty', {}, 'to is required'],
    ['from is missing', { to: TO }, 'from is required'],
    ['to is a number', { to: 521234567, from: FROM }, 'to must be string'],
    ['timeout_sec is 0', { to: TO, from: FROM, timeout_sec: 0 }, 'timeout_sec must be >= 1'],
    ['timeout_sec is 301', { to: TO, from: FROM, timeout_sec: 301 }, 'timeout_sec must be <= 300'],
    [
      'timeout_sec is not an integer',
      { to: TO, from: FROM, timeout_sec: 2.5 },
      'timeout_sec must be integer',
    ],
    [
      'timeout_sec is a string',
      { to: TO, from: FROM, timeout_sec: '30' },
      'timeout_sec must be integer',
    ],
    [
      'max_duration_sec is 0',
      { to: TO, from: FROM, max_duration_sec: 0 },
      'max_duration_sec must be >= 1',
    ],
    [
      'max_duration_sec is 14401',
      { to: TO, from: FROM, max_duration_sec: 14_401 },
      'max_duration_sec must be <= 14400',
    ],
    ['metadata is an array', { to: TO, from: FROM, metadata: ['a'] }, 'metadata must be object'],
    ['metadata is a string', { to: TO, from: FROM, metadata: 'x' }, 'metadata must be object'],
    [
      'an unknown field is sent',
      { to: TO, from: FROM, caller_name: 'x' },
      "body must not have property 'caller_name'",
    ],
  ])('answers 400 when %s', async (_what, body, message) => {
    const res = await dial(body);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: message, code: 'validation_failed' });
  });

  it('answers 400 Invalid request body for unparseable JSON', async () => {
    const res = await dial('{"to": ');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: 'Invalid request body',
      code: 'invalid_body',
    });
  });

  it.each([
    ['without a Content-Type', {}],
    ['with Content-Type text/plain', { 'content-type': 'text/plain' }],
  ])('answers 415 %s', async (_what, headers) => {
    const res = await dial({ to: TO, from: FROM }, headers);
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
  });

  it('accepts a charset parameter on the JSON content type', async () => {
    const res = await dial(
      { to: TO, from: FROM },
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(res.statusCode).toBe(202);
  });

  it('answers 401 without an API key', () =>
    expectMissingApiKey(api, tenant, '/api/v1/dial', { to: TO, from: FROM }));

  it('answers 403 cid_not_allowed when from is not on the allow-list, and places nothing', async () => {
    const before = (await commandsFor(api, node.prefix)).length;
    const res = await dial({ to: TO, from: '0771111111' });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      error: 'from is not on the caller-ID allow-list',
      code: 'cid_not_allowed',
    });
    expect(await commandsFor(api, node.prefix)).toHaveLength(before);
  });

  it("answers 403 for a number on another app's allow-list only", async () => {
    const other = await createTenant(api);
    await api.redis.sadd(api.keys.appCids(other.appId), '0779999999');
    const res = await dial({ to: TO, from: '0779999999' });
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('cid_not_allowed');
    const theirs = await dial({ to: TO, from: '0779999999' }, json, other);
    expect(theirs.statusCode).toBe(202);
  });
});
