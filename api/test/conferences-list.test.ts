import { beforeAll, describe, expect, it } from 'vitest';
import {
  createTenant,
  useTenant,
  json,
  liveNode,
  publishedEvents,
  useApi,
  type TestTenant,
} from './helpers.js';

const api = useApi();
const tenant = useTenant(api);
const other = useTenant(api);

interface Listed {
  room_id: string;
  name: string;
  members: number;
  created_at: string;
}
interface ListBody {
  conferences: Listed[];
  cursor: string;
}

const createRooms = async (who: TestTenant, names: readonly string[]): Promise<string[]> => {
  const replies = await Promise.all(
    names.map((name) =>
      api.app.inject({
        method: 'POST',
        url: '/api/v1/conferences',
        headers: { ...who.headers, ...json },
        payload: JSON.stringify({ name }),
      }),
    ),
  );
  return replies.map((r) => {
    expect(r.statusCode).toBe(201);
    return r.json<{ room_id: string }>().room_id;
  });
};

const list = (query: string, who = tenant) =>
  api.app.inject({ method: 'GET', url: `/api/v1/conferences${query}`, headers: who.headers });

const names = (prefix: string, n: number): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

beforeAll(async () => {
  await liveNode(api);
  // Created in parallel, so many share a creation millisecond: the cursor must order ties.
  await createRooms(tenant, names('mine', 120));
  await createRooms(other, names('theirs', 7));
});

describe('GET /conferences', () => {
  it('pages 120 rooms by 50 in creation order, with no duplicates and only the caller’s rooms', async () => {
    const pages: ListBody[] = [];
    let cursor = '';
    do {
      const res = await list(`?limit=50${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json<ListBody>();
      pages.push(body);
      cursor = body.cursor;
    } while (cursor !== '' && pages.length < 10);

    expect(pages.map((p) => p.conferences.length)).toEqual([50, 50, 20]);
    const ids = pages.flatMap((p) => p.conferences.map((c) => c.room_id));
    expect(new Set(ids).size).toBe(120);
    // Creation order: the order of the app's room list in Redis (score, then id).
    expect(ids).toEqual(await api.redis.zrange(api.keys.appRooms(tenant.appId), 0, -1));
    const listedNames = pages.flatMap((p) => p.conferences.map((c) => c.name));
    expect(listedNames.every((n) => n.startsWith('mine-'))).toBe(true);
  });

  it('lists each room with its name, member count and an ISO-8601 created_at', async () => {
    const res = await list('?limit=1');
    const body = res.json<ListBody>();
    expect(body.conferences).toEqual([
      {
        room_id: expect.any(String),
        name: expect.stringMatching(/^mine-/),
        members: 0,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      },
    ]);
    expect(body.cursor).not.toBe('');
  });

  it('rooms created one after another are listed in that order', async () => {
    const who = await createTenant(api);
    const first = await createRooms(who, ['first']);
    const second = await createRooms(who, ['second']);
    const third = await createRooms(who, ['third']);
    const body = (await list('', who)).json<ListBody>();
    expect(body.conferences.map((c) => c.room_id)).toEqual([...first, ...second, ...third]);
    expect(body.conferences.map((c) => c.name)).toEqual(['first', 'second', 'third']);
    expect(body.cursor).toBe('');
  });

  it('without a limit it answers 50', async () => {
    const body = (await list('')).json<ListBody>();
    expect(body.conferences).toHaveLength(50);
  });

  it('a limit over 200 is clamped to 200', async () => {
    const big = await createTenant(api);
    await createRooms(big, names('big', 205));
    const res = await list('?limit=500', big);
    expect(res.statusCode).toBe(200);
    const body = res.json<ListBody>();
    expect(body.conferences).toHaveLength(200);
    const rest = (await list(`?limit=500&cursor=${body.cursor}`, big)).json<ListBody>();
    expect(rest.conferences).toHaveLength(5);
    expect(rest.cursor).toBe('');
  });

  it('a room deleted between pages is not listed and nothing is skipped', async () => {
    const who = await createTenant(api);
    const ids = await createRooms(who, names('del', 6));
    const ordered = await api.redis.zrange(api.keys.appRooms(who.appId), 0, -1);
    expect(new Set(ordered)).toEqual(new Set(ids));
    const page1 = (await list('?limit=3', who)).json<ListBody>();
    expect(page1.conferences.map((c) => c.room_id)).toEqual(ordered.slice(0, 3));
    // Delete the last room of page 1 (the cursor's own room) and the first of page 2.
    for (const id of [ordered[2], ordered[3]]) {
      const res = await api.app.inject({
        method: 'DELETE',
        url: `/api/v1/conferences/${id}`,
        headers: who.headers,
      });
      expect(res.statusCode).toBe(200);
    }
    const page2 = (await list(`?limit=3&cursor=${page1.cursor}`, who)).json<ListBody>();
    expect(page2.conferences.map((c) => c.room_id)).toEqual(ordered.slice(4));
    expect(page2.cursor).toBe('');
  });

  it('rooms created in the same millisecond are paged without loss or repeat', async () => {
    const who = await createTenant(api);
    const ids = await createRooms(who, names('tie', 7));
    const key = api.keys.appRooms(who.appId);
    const score = Number(await api.redis.zscore(key, ids[0]!));
    await api.redis.zadd(key, 'XX', ...ids.flatMap((id) => [score, id]));
    const seen: string[] = [];
    let cursor = '';
    for (let i = 0; i < 10; i++) {
      const body = (await list(`?limit=2${cursor ? `&cursor=${cursor}` : ''}`, who)).json();
      seen.push(...(body as ListBody).conferences.map((c) => c.room_id));
      cursor = (body as ListBody).cursor;
      if (cursor === '') break;
    }
    expect(seen).toEqual([...ids].sort());
  });

  it('an app without rooms gets an empty list and an empty cursor', async () => {
    const who = await createTenant(api);
    const res = await list('', who);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ conferences: [], cursor: '' });
  });

  it.each(['0', '-1', '1.5', 'abc', ''])('limit=%s answers 400', async (limit) => {
    const res = await list(`?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: 'Invalid limit', code: 'invalid_limit' });
  });

  const b64 = (value: unknown): string =>
    Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
  const ROOM = 'abcde-room-00000000-0000-4000-8000-000000000000';
  it.each([
    ['garbage', 'not a cursor!'],
    ['base64 of text', b64('hello')],
    ['base64 of an array', b64([1, ROOM])],
    ['a missing score', b64({ id: ROOM })],
    ['a negative score', b64({ s: -1, id: ROOM })],
    ['a fractional score', b64({ s: 1.5, id: ROOM })],
    ['a string score', b64({ s: '1', id: ROOM })],
    ['an id that is no room id', b64({ s: 1, id: 'x' })],
    ['an extra field', b64({ s: 1, id: ROOM, offset: 3 })],
    ['padded base64', `${b64({ s: 1, id: ROOM })}==`],
    ['standard base64', Buffer.from(JSON.stringify({ s: 1, id: ROOM })).toString('base64')],
  ])('a cursor of %s answers 400', async (_case, cursor) => {
    const res = await list(`?cursor=${encodeURIComponent(cursor)}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ success: false, error: 'Invalid cursor', code: 'invalid_cursor' });
  });

  it('a cursor for a position past the end answers an empty last page', async () => {
    // Positions are creation times in µs.
    const cursor = b64({ s: (Date.now() + 86_400_000) * 1000, id: ROOM });
    const res = await list(`?cursor=${cursor}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ conferences: [], cursor: '' });
  });

  it('listing emits no event', async () => {
    const before = (await publishedEvents(api)).length;
    await list('?limit=5');
    expect(await publishedEvents(api)).toHaveLength(before);
  });
});
