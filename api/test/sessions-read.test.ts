import { beforeAll, describe, expect, it } from 'vitest';
import { useTenant, useLiveNode, seedSession, useApi } from './helpers.js';

// GET /sessions and GET /sessions/{uuid} on sessions seeded as the media node and dial write
// them; the media node's own writes (answer, hangup, other nodes) are in
// media-node/test/node/sessions.test.ts.

const api = useApi();
const tenant = useTenant(api);
const other = useTenant(api);
/** The tenant's 30 sessions, newest first: 20 inbound, 10 outbound, some sharing a millisecond. */
let newestFirst: string[];
const BASE = Date.UTC(2026, 0, 1);

interface Listed {
  session_uuid: string;
  direction: string;
  status: string;
  created_at: string;
}
interface ListBody {
  sessions: Listed[];
  next_cursor: string | null;
}

const get = (url: string, headers: Record<string, string> = tenant.headers) =>
  api.app.inject({ method: 'GET', url, headers });
const list = async (query = '', who = tenant): Promise<ListBody> => {
  const res = await get(`/api/v1/sessions${query}`, who.headers);
  expect(res.statusCode).toBe(200);
  return res.json<ListBody>();
};
/** Every page from the first, following next_cursor. */
const walk = async (query: string): Promise<{ ids: string[]; pages: number }> => {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep: string = query ? '&' : '';
    const page: ListBody = await list(
      `?${query}${cursor ? `${sep}cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    ids.push(...page.sessions.map((s) => s.session_uuid));
    cursor = page.next_cursor;
    pages++;
  } while (cursor);
  return { ids, pages };
};

const node = useLiveNode(api);
beforeAll(async () => {
  const seeded: Array<{ id: string; at: number }> = [];
  for (let i = 0; i < 30; i++) {
    // Pairs share a creation millisecond: the cursor must order ties.
    const at = BASE + Math.floor(i / 2);
    const outbound = i % 3 === 0;
    const id = await seedSession(api, tenant, node.prefix, {
      created_at: at,
      ...(outbound
        ? {
            direction: 'outbound',
            caller_id: '0731234567',
            did: '0521234567',
            dial_status: 'dialing',
            dial_started_at: new Date(at).toISOString(),
            metadata: { order: i },
          }
        : {}),
    });
    seeded.push({ id, at });
  }
  newestFirst = seeded.sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1)).map((s) => s.id);
  await seedSession(api, other, node.prefix);
});

describe('GET /api/v1/sessions', () => {
  it('lists the app’s sessions newest first, 20 by default, with an opaque next_cursor', async () => {
    const page = await list();
    expect(page.sessions.map((s) => s.session_uuid)).toEqual(newestFirst.slice(0, 20));
    expect(page.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('walks every page without repeats or gaps, ties in one millisecond included', async () => {
    const { ids, pages } = await walk('limit=7');
    expect(ids).toEqual(newestFirst);
    expect(pages).toBe(5);
  });

  it('ends with next_cursor null', async () => {
    const page = await list('?limit=30');
    expect(page.sessions).toHaveLength(30);
    expect(page.next_cursor).toBeNull();
  });

  it('clamps a limit above 100 to 100', async () => {
    const page = await list('?limit=1000');
    expect(page.sessions).toHaveLength(30);
  });

  it('filters by direction, across pages', async () => {
    const outbound = await walk('direction=outbound&limit=4');
    const inbound = await walk('direction=inbound&limit=4');
    expect(outbound.ids).toHaveLength(10);
    expect(inbound.ids).toHaveLength(20);
    expect(outbound.ids).toEqual(newestFirst.filter((id) => outbound.ids.includes(id)));
    expect(inbound.ids).toEqual(newestFirst.filter((id) => !outbound.ids.includes(id)));
    const sample = await list('?direction=outbound&limit=1');
    expect(sample.sessions[0]?.direction).toBe('outbound');
  });

  it('filters by status: seeded sessions are active, none has ended', async () => {
    expect((await walk('status=active')).ids).toEqual(newestFirst);
    expect(await list('?status=ended')).toEqual({ sessions: [], next_cursor: null });
  });

  it('leaves out of status=active a session whose hash says it ended (it ended between the reads)', async () => {
    const id = await seedSession(api, tenant, node.prefix, { created_at: BASE + 1000 });
    expect((await list('?status=active&limit=1')).sessions[0]?.session_uuid).toBe(id);
    // The state endSession-6.lua leaves in the hash, seen before the index read of a later list.
    await api.redis.hset(api.keys.session(id), 'ended_at', String(BASE + 2000));
    expect((await list('?status=active&limit=1')).sessions[0]?.session_uuid).not.toBe(id);
    expect((await list('?limit=1')).sessions[0]).toMatchObject({
      session_uuid: id,
      status: 'ended',
    });
    await api.redis.del(api.keys.session(id));
  });

  it('shows another app only its own sessions', async () => {
    const page = await list('', other);
    expect(page.sessions).toHaveLength(1);
    expect(newestFirst).not.toContain(page.sessions[0]?.session_uuid);
  });

  it.each([
    ['0', 'Invalid limit'],
    ['-1', 'Invalid limit'],
    ['abc', 'Invalid limit'],
    ['1.5', 'Invalid limit'],
  ])('answers 400 to limit=%s', async (limit, error) => {
    const res = await get(`/api/v1/sessions?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error, code: 'invalid_limit' });
  });

  it.each([
    ['not base64url', '!!'],
    ['JSON that is not a position', Buffer.from('{"x":1}').toString('base64url')],
    ['a room id', Buffer.from('{"s":1,"id":"abcde-room-x"}').toString('base64url')],
    ['garbage', 'Zm9v'],
  ])('answers 400 Invalid cursor to %s', async (_what, cursor) => {
    const res = await get(`/api/v1/sessions?cursor=${cursor}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: 'Invalid cursor', code: 'invalid_cursor' });
  });

  it.each([
    ['status=live', 'status must be active or ended'],
    ['status=', 'status must be active or ended'],
    ['direction=sideways', 'direction must be inbound or outbound'],
  ])('answers 400 to the filter %s', async (query, error) => {
    const res = await get(`/api/v1/sessions?${query}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error, code: 'validation_failed' });
  });

  it('answers 401 without the API key, or with a wrong one', async () => {
    const missing = await get('/api/v1/sessions', { 'x-app-id': tenant.appId });
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      success: false,
      error: 'Missing API key',
      code: 'missing_api_key',
    });
    const wrong = await get('/api/v1/sessions', {
      'x-app-id': tenant.appId,
      'x-api-key': 'x'.repeat(20),
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({
      success: false,
      error: 'Invalid API key',
      code: 'invalid_api_key',
    });
  });
});

describe('GET /api/v1/sessions/{uuid}', () => {
  it('reads an inbound session', async () => {
    const id = await seedSession(api, tenant, node.prefix, { created_at: BASE - 5 });
    const res = await get(`/api/v1/sessions/${id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      session_uuid: id,
      direction: 'inbound',
      caller_id: '0501234567',
      did: '0731234567',
      status: 'ringing',
      created_at: new Date(BASE - 5).toISOString(),
      answered_at: null,
      ended_at: null,
      hangup_cause: null,
      duration_seconds: null,
      room_id: null,
      recording_ids: [],
      bridge: null,
      parent_session_uuid: null,
    });
  });

  it('shows the bridge a session is in, and on a transfer’s new leg its parent, in the list too', async () => {
    const caller = await seedSession(api, tenant, node.prefix, {
      created_at: BASE - 4,
      answered_at: BASE - 3,
    });
    const leg = await seedSession(api, tenant, node.prefix, {
      created_at: BASE - 2,
      direction: 'outbound',
      caller_id: '0731234567',
      did: '0521234567',
      dial_status: 'dialing',
      parent_session_uuid: caller,
    });
    // The fields a transfer's script run writes on both, then those of the bridge it made.
    const mark = (id: string, state: string, peer: string) =>
      api.redis.hset(api.keys.session(id), {
        bridge_state: state,
        bridge_peer: peer,
        bridge_uid: 'xfer',
      });
    await mark(caller, 'transferring', leg);
    await mark(leg, 'transferring', caller);
    expect((await get(`/api/v1/sessions/${leg}`)).json()).toMatchObject({
      bridge: { peer_session_uuid: caller, state: 'transferring' },
      parent_session_uuid: caller,
    });
    await mark(caller, 'bridged', leg);
    expect((await get(`/api/v1/sessions/${caller}`)).json()).toMatchObject({
      bridge: { peer_session_uuid: leg, state: 'bridged' },
      parent_session_uuid: null,
    });
    const listed = await list('?limit=100');
    expect(listed.sessions.find((s) => s.session_uuid === leg)).toMatchObject({
      bridge: { peer_session_uuid: caller, state: 'transferring' },
      parent_session_uuid: caller,
    });
    // Out of the bridge (bridgeEnded-3.lua deletes the three fields): none; the parent stays.
    await api.redis.hdel(api.keys.session(leg), 'bridge_state', 'bridge_peer', 'bridge_uid');
    expect((await get(`/api/v1/sessions/${leg}`)).json()).toMatchObject({
      bridge: null,
      parent_session_uuid: caller,
    });
    for (const id of [caller, leg]) await api.redis.del(api.keys.session(id));
  });

  it('reads a dialed session with its to, from and metadata', async () => {
    const outbound = (await list('?direction=outbound&limit=1')).sessions[0]!;
    const res = await get(`/api/v1/sessions/${outbound.session_uuid}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      direction: 'outbound',
      to: '0521234567',
      from: '0731234567',
      caller_id: '0731234567',
      status: 'ringing',
      metadata: { order: expect.any(Number) },
    });
    expect(res.json()).not.toHaveProperty('did');
  });

  it('answers 403 for another app’s session', async () => {
    const theirs = (await list('', other)).sessions[0]!.session_uuid;
    const res = await get(`/api/v1/sessions/${theirs}`);
    expect(res.statusCode).toBe(403);
    expect(res.json()).toEqual({
      success: false,
      error: 'Session belongs to a different application',
      code: 'session_forbidden',
    });
  });

  it.each([
    ['an unknown session', `${'abcde'}-00000000-0000-4000-8000-000000000000`],
    ['a malformed id', 'nope'],
  ])('answers 404 for %s', async (_what, id) => {
    const res = await get(`/api/v1/sessions/${id}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: 'Session not found',
      code: 'session_not_found',
    });
  });

  it('answers 404 once the record has expired', async () => {
    const id = await seedSession(api, tenant, node.prefix);
    await api.redis.del(api.keys.session(id));
    const res = await get(`/api/v1/sessions/${id}`);
    expect(res.statusCode).toBe(404);
    expect((await walk('')).ids).not.toContain(id);
  });

  it('answers 401 without credentials', async () => {
    const res = await get(`/api/v1/sessions/${newestFirst[0]}`, { 'x-app-id': tenant.appId });
    expect(res.statusCode).toBe(401);
  });
});
