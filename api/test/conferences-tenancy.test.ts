import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandsFor,
  createRoom,
  publishedEvents,
  tenantRequest,
  useApi,
  useLiveNode,
  useTenant,
} from './helpers.js';

const api = useApi();
const owner = useTenant(api);
const intruder = useTenant(api);
let roomId: string;
const NAME = 'owners-private-room';

const node = useLiveNode(api);
beforeAll(async () => {
  roomId = await createRoom(api, owner, NAME);
});

const FORBIDDEN = {
  success: false,
  error: 'Room belongs to a different application',
  code: 'room_forbidden',
};
const NOT_FOUND = { success: false, error: 'Room not found', code: 'room_not_found' };

// Every room route, called by another app with the owner's room id.
const matrix: [string, 'GET' | 'POST' | 'DELETE', string, unknown, number, object][] = [
  ['status', 'GET', '', undefined, 403, FORBIDDEN],
  ['members', 'GET', '/members', undefined, 404, NOT_FOUND],
  ['play', 'POST', '/play', { urls: ['https://example.com/a.wav'] }, 403, FORBIDDEN],
  ['pause', 'POST', '/pause', undefined, 403, FORBIDDEN],
  ['stop', 'POST', '/stop', undefined, 403, FORBIDDEN],
  ['volume', 'POST', '/volume', { volume: 5 }, 403, FORBIDDEN],
  ['delete', 'DELETE', '', undefined, 403, FORBIDDEN],
];

describe('conference rooms of another application', () => {
  it.each(matrix)(
    '%s answers %s/%i and leaks nothing of the room',
    async (_name, method, path, body, status, error) => {
      const res = await tenantRequest(
        api,
        intruder,
        method,
        `/api/v1/conferences/${roomId}${path}`,
        body,
      );
      expect(res.statusCode).toBe(status);
      expect(res.json()).toEqual(error);
      expect(res.body).not.toContain(NAME);
      expect(res.body).not.toContain(owner.appId);
    },
  );

  it('leaves the room exactly as it was: no state change, command or event', async () => {
    const status = await tenantRequest(api, owner, 'GET', `/api/v1/conferences/${roomId}`);
    expect(status.statusCode).toBe(200);
    expect(status.json()).toMatchObject({
      name: NAME,
      playback_status: 'stopped',
      playback_volume: 0,
      playback_urls: [],
    });
    expect(await commandsFor(api, node.prefix)).toEqual([]);
    const events = await publishedEvents(api);
    expect(events.filter((e) => e.app_id === intruder.appId)).toEqual([]);
    expect(events.map((e) => e.event)).toEqual(['conference.created']);
    // The intruder's refused controls did not start the room's cooldowns either.
    const play = await tenantRequest(api, owner, 'POST', `/api/v1/conferences/${roomId}/play`, {
      urls: ['https://example.com/a.wav'],
    });
    expect(play.statusCode).toBe(202);
    const pause = await tenantRequest(api, owner, 'POST', `/api/v1/conferences/${roomId}/pause`);
    expect(pause.statusCode).toBe(202);
  });

  it("the intruder's list does not show the room", async () => {
    const res = await tenantRequest(api, intruder, 'GET', '/api/v1/conferences');
    expect(res.json()).toEqual({ conferences: [], cursor: '' });
  });
});
