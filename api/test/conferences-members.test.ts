import { describe, expect, it } from 'vitest';
import { eventArgs, lua, ScriptCode } from '@voicegw/shared';
import {
  createRoom,
  publishedEvents,
  seedSession,
  tenantRequest,
  useApiWithNode,
} from './helpers.js';

const { api, tenant, node } = useApiWithNode();
let counter = 0;

interface MemberBody {
  room_id: string;
  members: { uuid: string; did: string; caller_id: string; muted: boolean }[];
  cursor: string;
}

const newRoom = (): Promise<string> => createRoom(api, tenant, `members-${++counter}`);

const session = (sessionId: string, command: string, body?: unknown) =>
  tenantRequest(api, tenant, 'POST', `/api/v1/sessions/${sessionId}/commands/${command}`, body);

/** Seeds `n` sessions and joins them to the room through the session command route. */
const join = async (roomId: string, n: number): Promise<string[]> => {
  const ids: string[] = [];
  for (let i = 0; i < n; i++) {
    const id = await seedSession(api, tenant, node.prefix, {
      caller_id: `05012345${String(i).padStart(2, '0')}`,
      did: `07312345${String(i).padStart(2, '0')}`,
    });
    const res = await session(id, 'conference/join', { room_id: roomId });
    expect(res.statusCode).toBe(202);
    ids.push(id);
  }
  return ids;
};

const members = (roomId: string, query = '') =>
  api.app.inject({
    method: 'GET',
    url: `/api/v1/conferences/${roomId}/members${query}`,
    headers: tenant.headers,
  });

describe('GET /conferences/{room_id}/members', () => {
  it('lists the sessions that joined, muted, with their did and caller_id', async () => {
    const roomId = await newRoom();
    const [first, second] = await join(roomId, 2);
    const res = await members(roomId);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      room_id: roomId,
      members: [
        { uuid: first, did: '0731234500', caller_id: '0501234500', muted: true },
        { uuid: second, did: '0731234501', caller_id: '0501234501', muted: true },
      ],
      cursor: '',
    });
    const room = await api.app.inject({
      method: 'GET',
      url: `/api/v1/conferences/${roomId}`,
      headers: tenant.headers,
    });
    expect(room.json().members).toBe(2);
  });

  it('an unmuted member is listed with muted false', async () => {
    const roomId = await newRoom();
    const [id] = await join(roomId, 1);
    await api.redis.hset(api.keys.session(id!), { conf_state: 'joined', conf_muted: '0' });
    expect((await members(roomId)).json().members[0].muted).toBe(false);
  });

  it('pages members in join order with a cursor', async () => {
    const roomId = await newRoom();
    const ids = await join(roomId, 5);
    const seen: string[] = [];
    let cursor = '';
    const sizes: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await members(roomId, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json<MemberBody>();
      sizes.push(body.members.length);
      seen.push(...body.members.map((m) => m.uuid));
      cursor = body.cursor;
      if (cursor === '') break;
    }
    expect(sizes).toEqual([2, 2, 1]);
    expect(seen).toEqual(ids);
  });

  it('a limit over 1000 is clamped and answers the members', async () => {
    const roomId = await newRoom();
    await join(roomId, 1);
    const res = await members(roomId, '?limit=5000');
    expect(res.statusCode).toBe(200);
    expect(res.json<MemberBody>().members).toHaveLength(1);
  });

  it('a limit over 1000 reads at most 1000 members', async () => {
    const roomId = await newRoom();
    // Seeded straight into the member set: 1001 joins through the API would take a while.
    const ids = Array.from(
      { length: 1001 },
      (_, i) => `${node.prefix}-${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`,
    );
    await api.redis.zadd(api.keys.roomMembers(roomId), ...ids.flatMap((id, i) => [i, id]));
    await Promise.all(
      ids.map((id) =>
        api.redis.hset(api.keys.session(id), {
          app_id: tenant.appId,
          caller_id: '0501234567',
          did: '0731234567',
          conf_room: roomId,
          conf_muted: '1',
        }),
      ),
    );
    const body = (await members(roomId, '?limit=5000')).json<MemberBody>();
    expect(body.members).toHaveLength(1000);
    expect(body.cursor).not.toBe('');
    const rest = (await members(roomId, `?limit=5000&cursor=${body.cursor}`)).json<MemberBody>();
    expect(rest.members.map((m) => m.uuid)).toEqual([ids[1000]]);
  });

  it.each(['0', '-3', '2.5', 'x'])('limit=%s answers 400', async (limit) => {
    const res = await members(await newRoom(), `?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: 'Invalid limit', code: 'invalid_limit' });
  });

  it('a bad cursor, or a cursor of the room list, answers 400', async () => {
    const roomId = await newRoom();
    const roomCursor = Buffer.from(JSON.stringify({ s: 1, id: roomId })).toString('base64url');
    for (const cursor of ['%%%', 'abc', roomCursor]) {
      const res = await members(roomId, `?cursor=${encodeURIComponent(cursor)}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({
        success: false,
        error: 'Invalid cursor',
        code: 'invalid_cursor',
      });
    }
  });

  it.each([
    ['an unknown room', 'abcde-room-00000000-0000-4000-8000-000000000000'],
    ['a malformed room id', 'nope'],
  ])('%s answers 404', async (_case, roomId) => {
    const res = await members(roomId);
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'Room not found', code: 'room_not_found' });
  });
});

describe('DELETE /conferences/{room_id} with members', () => {
  it('returns its members to no conference: a later leave answers 404', async () => {
    const roomId = await newRoom();
    const [joined, joining] = await join(roomId, 2);
    // One member confirmed by the media node, one still joining.
    await api.redis.hset(api.keys.session(joined!), {
      conf_state: 'joined',
      conf_member_id: '7',
      conf_muted: '0',
    });
    const res = await api.app.inject({
      method: 'DELETE',
      url: `/api/v1/conferences/${roomId}`,
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(200);

    for (const id of [joined!, joining!]) {
      expect(
        await api.redis.hmget(
          api.keys.session(id),
          'conf_state',
          'conf_room',
          'conf_member_id',
          'conf_muted',
        ),
      ).toEqual(['none', '', '', '0']);
      const leave = await session(id, 'conference/leave');
      expect(leave.statusCode).toBe(404);
      expect(leave.json()).toEqual({
        success: false,
        error: 'Session is not in a conference',
        code: 'not_in_conference',
      });
    }
    expect(await api.redis.exists(api.keys.roomMembers(roomId))).toBe(0);
  });

  it('leaves alone a listed session that has since moved to another room', async () => {
    const roomId = await newRoom();
    const elsewhere = await newRoom();
    const [id] = await join(roomId, 1);
    // The media node confirmed a leave and the session joined another room, but this room's
    // member set still names it.
    await api.redis.hset(api.keys.session(id!), { conf_state: 'joined', conf_room: elsewhere });
    await api.app.inject({
      method: 'DELETE',
      url: `/api/v1/conferences/${roomId}`,
      headers: tenant.headers,
    });
    expect(await api.redis.hmget(api.keys.session(id!), 'conf_state', 'conf_room')).toEqual([
      'joined',
      elsewhere,
    ]);
  });

  it('joining a destroyed room answers 404 Room not found', async () => {
    const roomId = await newRoom();
    await api.app.inject({
      method: 'DELETE',
      url: `/api/v1/conferences/${roomId}`,
      headers: tenant.headers,
    });
    const id = await seedSession(api, tenant, node.prefix);
    const res = await session(id, 'conference/join', { room_id: roomId });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({ success: false, error: 'Room not found', code: 'room_not_found' });
  });
});

describe('deleteRoom-6.lua', () => {
  it('refuses a member list that misses a session, so a join racing the delete is not lost', async () => {
    const roomId = await newRoom();
    await join(roomId, 1);
    const { keys } = api;
    const reply = await api.app.scripts.run(
      lua.deleteRoom(
        {
          room: keys.room(roomId),
          roomMembers: keys.roomMembers(roomId),
          roomNames: keys.appRoomNames(tenant.appId),
          appRooms: keys.appRooms(tenant.appId),
          commandStream: keys.commandStream(node.prefix),
          events: keys.events(),
        },
        {
          appId: tenant.appId,
          roomId,
          command: '{}',
          event: eventArgs(tenant.appId, { event: 'conference.destroyed', room_id: roomId }),
          members: [],
        },
      ),
    );
    expect(reply).toEqual([ScriptCode.ROOM_MEMBERS_CHANGED]);
    expect(await api.redis.exists(keys.room(roomId))).toBe(1);
    // Refused: neither the room's destruction nor its event happened.
    const destroyed = (await publishedEvents(api)).filter(
      (e) => e.event === 'conference.destroyed' && (e as { room_id?: string }).room_id === roomId,
    );
    expect(destroyed).toEqual([]);
  });
});
