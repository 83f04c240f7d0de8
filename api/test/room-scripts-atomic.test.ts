import { afterEach, describe, expect, it } from 'vitest';
import { commandsFor, createRoom, tenantRequest, useApiWithNode } from './helpers.js';

/**
 * Redis does not roll a script back when a command in it fails: a room change and its event
 * are one script, so the write that can fail (an XADD on a key of the wrong type) must come
 * before the changes, or a failed request leaves a change behind that no event announced.
 */
const { api, tenant, node } = useApiWithNode();
afterEach(() => api.redis.del(api.keys.events()));

let counter = 0;
const uniqueName = (): string => `atomic-${Date.now()}-${++counter}`;

const request = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown) =>
  tenantRequest(api, tenant, method, `/api/v1/conferences${url}`, body);

const newRoom = (name = uniqueName()): Promise<string> => createRoom(api, tenant, name);

/** The event stream's key holds a string: every XADD to it fails inside the script. */
async function breakEventStream(): Promise<void> {
  await api.redis.del(api.keys.events());
  await api.redis.set(api.keys.events(), 'not a stream');
}

const roomCommands = async (roomId: string) =>
  (await commandsFor(api, node.prefix)).filter((c) => c.kind === 'room' && c.room_id === roomId);

describe('a room change whose event cannot be appended leaves nothing behind', () => {
  it('create: the name stays free, so the same create succeeds once the stream is back', async () => {
    const name = uniqueName();
    await breakEventStream();
    expect((await request('POST', '', { name })).statusCode).toBe(500);
    await api.redis.del(api.keys.events());

    await newRoom(name);
    const list = await request('GET', '');
    const rooms = list.json<{ conferences: { name: string }[] }>().conferences;
    expect(rooms.filter((r) => r.name === name)).toHaveLength(1);
  });

  it('delete: the room is still there and its node was not told to destroy it', async () => {
    const roomId = await newRoom();
    await breakEventStream();
    expect((await request('DELETE', `/${roomId}`)).statusCode).toBe(500);

    expect((await request('GET', `/${roomId}`)).statusCode).toBe(200);
    expect(await roomCommands(roomId)).toEqual([]);
  });

  it('play: the room does not say it is playing and its node got no play command', async () => {
    const roomId = await newRoom();
    await breakEventStream();
    const play = await request('POST', `/${roomId}/play`, { urls: ['http://example.com/a.wav'] });
    expect(play.statusCode).toBe(500);

    const room = await request('GET', `/${roomId}`);
    expect(room.json()).toMatchObject({ playback_status: 'stopped' });
    expect(await roomCommands(roomId)).toEqual([]);
  });
});
