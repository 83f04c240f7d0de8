import { describe, expect, it } from 'vitest';
import {
  commandsFor,
  createRoom,
  createTenant,
  expectMissingApiKey,
  json,
  liveNode,
  publishedEvents,
  useApiWithNode,
  withApi,
} from './helpers.js';

const { api, tenant, node } = useApiWithNode();

const ROOM_ID = /^[a-z0-9]{5}-room-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UNKNOWN_ROOM = 'abcde-room-00000000-0000-4000-8000-000000000000';
let counter = 0;
const uniqueName = (): string => `room-${Date.now()}-${++counter}`;

const create = (body: unknown, headers: Record<string, string> = {}, on = api, who = tenant) =>
  on.app.inject({
    method: 'POST',
    url: '/api/v1/conferences',
    headers: { ...who.headers, ...json, ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  });

const newRoom = (name = uniqueName()): Promise<string> => createRoom(api, tenant, name);

const get = (url: string, who = tenant) =>
  api.app.inject({ method: 'GET', url: `/api/v1/conferences${url}`, headers: who.headers });

describe('POST /conferences', () => {
  it('creates a room on the live node and emits conference.created', async () => {
    const name = uniqueName();
    const res = await create({ name });
    expect(res.statusCode).toBe(201);
    const { room_id: roomId } = res.json<{ room_id: string }>();
    expect(res.json()).toEqual({ room_id: expect.stringMatching(ROOM_ID) });
    expect(roomId.startsWith(`${node.prefix}-room-`)).toBe(true);

    const events = await publishedEvents(api);
    expect(
      events.filter(
        (e) => e.event === 'conference.created' && 'room_id' in e && e.room_id === roomId,
      ),
    ).toEqual([
      expect.objectContaining({
        event: 'conference.created',
        room_id: roomId,
        name,
        app_id: tenant.appId,
      }),
    ]);
  });

  it('a taken name answers 409 with the existing room id', async () => {
    const name = uniqueName();
    const first = await newRoom(name);
    const res = await create({ name });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      success: false,
      error: 'Conference name already taken',
      code: 'conference_name_taken',
      detail: { room_id: first },
    });
  });

  it('the same name in another app is a different room', async () => {
    const name = uniqueName();
    const mine = await newRoom(name);
    const other = await createTenant(api);
    const res = await create({ name }, {}, api, other);
    expect(res.statusCode).toBe(201);
    expect(res.json().room_id).not.toBe(mine);
  });

  it('50 parallel creates of one name give one 201 and 49 409s naming that room', async () => {
    const name = uniqueName();
    const replies = await Promise.all(Array.from({ length: 50 }, () => create({ name })));
    const created = replies.filter((r) => r.statusCode === 201);
    const taken = replies.filter((r) => r.statusCode === 409);
    expect(created).toHaveLength(1);
    expect(taken).toHaveLength(49);
    const roomId = created[0]!.json<{ room_id: string }>().room_id;
    for (const reply of taken) {
      expect(reply.json()).toEqual({
        success: false,
        error: 'Conference name already taken',
        code: 'conference_name_taken',
        detail: { room_id: roomId },
      });
    }
    const events = await publishedEvents(api);
    expect(
      events.filter((e) => e.event === 'conference.created' && 'name' in e && e.name === name),
    ).toHaveLength(1);
  });

  it('the room goes to the least loaded live node', async () => {
    await withApi({}, async (own) => {
      const who = await createTenant(own);
      await liveNode(own, { capacity: 100, active_sessions: 90 });
      const idle = await liveNode(own, { capacity: 100, active_sessions: 5 });
      await liveNode(own, { capacity: 100, active_sessions: 0, draining: true });
      const res = await create({ name: 'placed' }, {}, own, who);
      expect(res.statusCode).toBe(201);
      expect(res.json<{ room_id: string }>().room_id.startsWith(`${idle}-room-`)).toBe(true);
    });
  });

  it('with no live media node it answers 503', async () => {
    await withApi({}, async (own) => {
      const who = await createTenant(own);
      await liveNode(own, { draining: true });
      const res = await create({ name: 'nowhere' }, {}, own, who);
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({
        success: false,
        error: 'No media node available; retry with backoff',
        code: 'no_media_node',
      });
    });
  });

  const invalid: [string, unknown, string, string][] = [
    ['a leading hyphen', { name: '-room' }, 'name has an invalid format', 'validation_failed'],
    ['a leading underscore', { name: '_room' }, 'name has an invalid format', 'validation_failed'],
    ['a space', { name: 'my room' }, 'name has an invalid format', 'validation_failed'],
    ['an empty name', { name: '' }, 'name has an invalid format', 'validation_failed'],
    [
      '65 characters',
      { name: 'a'.repeat(65) },
      'name must NOT have more than 64 characters',
      'validation_failed',
    ],
    ['a missing name', {}, 'name is required', 'validation_failed'],
    ['a numeric name', { name: 42 }, 'name must be string', 'validation_failed'],
    [
      'an unknown field',
      { name: 'ok', size: 3 },
      "body must not have property 'size'",
      'validation_failed',
    ],
    ['unparseable JSON', '{"name": ', 'Invalid request body', 'invalid_body'],
  ];
  it.each(invalid)('%s answers 400', async (_case, body, message, code) => {
    const res = await create(body);
    expect(res.json()).toEqual({ success: false, error: message, code });
    expect(res.statusCode).toBe(400);
  });

  it('64 characters with hyphens and underscores are accepted', async () => {
    const res = await create({ name: `A1_-${'b'.repeat(60)}` });
    expect(res.statusCode).toBe(201);
  });

  it('a body without a JSON content type answers 415', async () => {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v1/conferences',
      headers: { ...tenant.headers, 'content-type': 'text/plain' },
      payload: JSON.stringify({ name: uniqueName() }),
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
    const none = await api.app.inject({
      method: 'POST',
      url: '/api/v1/conferences',
      headers: tenant.headers,
    });
    expect(none.statusCode).toBe(415);
  });

  it('a JSON content type with a charset is accepted', async () => {
    const res = await create(
      { name: uniqueName() },
      { 'content-type': 'application/json; charset=utf-8' },
    );
    expect(res.statusCode).toBe(201);
  });

  it('without credentials it answers 401', () =>
    expectMissingApiKey(api, tenant, '/api/v1/conferences', { name: uniqueName() }));
});

describe('GET /conferences/{room_id}', () => {
  it('answers the room status object with created_at in epoch seconds', async () => {
    const name = uniqueName();
    const before = Math.floor(Date.now() / 1000);
    const roomId = await newRoom(name);
    const res = await get(`/${roomId}`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      room_id: roomId,
      name,
      created_at: expect.stringMatching(/^\d+$/),
      members: 0,
      playback_status: 'stopped',
      playback_volume: 0,
      playback_urls: [],
      playback_operation_id: '',
    });
    expect(Number(body.created_at)).toBeGreaterThanOrEqual(before - 1);
    expect(Number(body.created_at)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
  });

  it.each([
    ['an unknown room', UNKNOWN_ROOM],
    ['a malformed room id', 'not-a-room'],
    ['a session id', 'abcde-00000000-0000-4000-8000-000000000000'],
  ])('%s answers 404', async (_case, roomId) => {
    const res = await get(`/${roomId}`);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'Room not found', code: 'room_not_found' });
  });
});

describe('DELETE /conferences/{room_id}', () => {
  it('removes the room, tells its node to destroy it and emits conference.destroyed', async () => {
    const name = uniqueName();
    const roomId = await newRoom(name);
    const res = await api.app.inject({
      method: 'DELETE',
      url: `/api/v1/conferences/${roomId}`,
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ room_id: roomId });

    expect((await get(`/${roomId}`)).statusCode).toBe(404);
    const commands = (await commandsFor(api, node.prefix)).filter(
      (c) => c.kind === 'room' && c.room_id === roomId,
    );
    expect(commands).toEqual([
      expect.objectContaining({
        kind: 'room',
        command: 'destroy',
        room_id: roomId,
        app_id: tenant.appId,
        operation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      }),
    ]);
    const events = await publishedEvents(api);
    expect(
      events.filter(
        (e) => e.event === 'conference.destroyed' && 'room_id' in e && e.room_id === roomId,
      ),
    ).toEqual([expect.objectContaining({ room_id: roomId, app_id: tenant.appId })]);
    expect(await api.redis.zscore(api.keys.appRooms(tenant.appId), roomId)).toBeNull();
    expect(await api.redis.hget(api.keys.appRoomNames(tenant.appId), name)).toBeNull();
  });

  it('frees the name for a new room', async () => {
    const name = uniqueName();
    const first = await newRoom(name);
    await api.app.inject({
      method: 'DELETE',
      url: `/api/v1/conferences/${first}`,
      headers: tenant.headers,
    });
    const second = await newRoom(name);
    expect(second).not.toBe(first);
  });

  it('a room deleted twice answers 404 the second time', async () => {
    const roomId = await newRoom();
    const del = () =>
      api.app.inject({
        method: 'DELETE',
        url: `/api/v1/conferences/${roomId}`,
        headers: tenant.headers,
      });
    expect((await del()).statusCode).toBe(200);
    const again = await del();
    expect(again.statusCode).toBe(404);
    expect(again.json()).toEqual({
      success: false,
      error: 'Room not found',
      code: 'room_not_found',
    });
  });

  it('a malformed room id answers 404', async () => {
    const res = await api.app.inject({
      method: 'DELETE',
      url: '/api/v1/conferences/nope',
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'Room not found', code: 'room_not_found' });
  });
});
