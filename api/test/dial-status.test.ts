import { beforeAll, describe, expect, it } from 'vitest';
import { seedSession, tenantRequest, useApi, useLiveNode, useTenant } from './helpers.js';

const api = useApi();
const owner = useTenant(api);
const other = useTenant(api);

const FROM = '0731234567';
const TO = '0521234567';
const NOT_FOUND = { success: false, error: 'Dial not found', code: 'dial_not_found' };

const node = useLiveNode(api);
beforeAll(async () => {
  await api.redis.sadd(api.keys.appCids(owner.appId), FROM);
});

async function placeDial(): Promise<string> {
  const res = await tenantRequest(api, owner, 'POST', '/api/v1/dial', {
    to: TO,
    from: FROM,
    metadata: { ref: 'x' },
  });
  expect(res.statusCode).toBe(202);
  return res.json().session_uuid as string;
}

const status = (id: string, who = owner) => tenantRequest(api, who, 'GET', `/api/v1/dial/${id}`);

describe('GET /dial/{session_uuid}', () => {
  it('reports a new dial as dialing with its ISO-8601 UTC start time', async () => {
    const before = Date.now();
    const id = await placeDial();
    const res = await status(id);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      session_uuid: id,
      status: 'dialing',
      started_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(Date.parse(body.started_at)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(body.started_at)).toBeLessThanOrEqual(Date.now());
  });

  it.each(['ringing', 'early_media', 'answered', 'ended'])(
    'reports %s once the media node has recorded it',
    async (state) => {
      const id = await placeDial();
      const started = await api.redis.hget(api.keys.session(id), 'dial_started_at');
      await api.redis.hset(api.keys.session(id), 'dial_status', state);
      const res = await status(id);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ session_uuid: id, status: state, started_at: started });
    },
  );

  it('answers 404 Dial not found for an unknown session', async () => {
    const res = await status(`${node.prefix}-00000000-0000-4000-8000-000000000000`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('answers 404 Dial not found for an id that is not a session id', async () => {
    const res = await status('not-a-session');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('answers 404 Dial not found for an inbound session of the same app', async () => {
    const inbound = await seedSession(api, owner, node.prefix);
    const res = await status(inbound);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('answers 400 without X-App-ID and 401 with a wrong API key', async () => {
    const id = await placeDial();
    const res = await api.app.inject({ method: 'GET', url: `/api/v1/dial/${id}` });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({
      success: false,
      error: 'Missing X-App-ID header',
      code: 'missing_app_id',
    });
    const wrongKey = await api.app.inject({
      method: 'GET',
      url: `/api/v1/dial/${id}`,
      headers: { 'x-app-id': owner.appId, 'x-api-key': 'wrong-key-0123456789' },
    });
    expect(wrongKey.statusCode).toBe(401);
    expect(wrongKey.json()).toEqual({
      success: false,
      error: 'Invalid API key',
      code: 'invalid_api_key',
    });
  });
});

describe('dial tenancy', () => {
  it("answers 404 Dial not found for another app's dial, revealing nothing", async () => {
    const id = await placeDial();
    const res = await status(id, other);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual(NOT_FOUND);
  });

  it('the dialed session belongs to the app that dialed it', async () => {
    const id = await placeDial();
    const hangup = (who: typeof owner) =>
      tenantRequest(api, who, 'POST', `/api/v1/sessions/${id}/commands/hangup`);
    const theirs = await hangup(other);
    expect(theirs.statusCode).toBe(403);
    expect(theirs.json()).toEqual({
      success: false,
      error: 'Session belongs to a different application',
      code: 'session_forbidden',
    });
    const mine = await hangup(owner);
    expect(mine.statusCode).toBe(202);
  });

  it("cannot dial from another app's caller ID", async () => {
    const res = await tenantRequest(api, other, 'POST', '/api/v1/dial', { to: TO, from: FROM });
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      error: 'from is not on the caller-ID allow-list',
      code: 'cid_not_allowed',
    });
  });
});
