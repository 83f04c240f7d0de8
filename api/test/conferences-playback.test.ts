import type { RoomCommandMessage } from '@voicegw/shared';
import { describe, expect, it } from 'vitest';
import {
  commandsFor,
  createRoom,
  createTenant,
  json,
  publishedEvents,
  useApiWithNode,
} from './helpers.js';

const { api, tenant, node } = useApiWithNode();

const URLS = ['https://example.com/a.wav', 'http://example.com/b.mp3'];
const OPERATION = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
let counter = 0;

const newRoom = (who = tenant): Promise<string> => createRoom(api, who, `play-${++counter}`);

const control = (
  roomId: string,
  action: string,
  body?: unknown,
  headers: Record<string, string> = {},
  who = tenant,
) =>
  api.app.inject({
    method: 'POST',
    url: `/api/v1/conferences/${roomId}/${action}`,
    headers: { ...who.headers, ...(body === undefined ? {} : json), ...headers },
    ...(body === undefined
      ? {}
      : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });

const status = async (roomId: string) =>
  (
    await api.app.inject({
      method: 'GET',
      url: `/api/v1/conferences/${roomId}`,
      headers: tenant.headers,
    })
  ).json();

const roomCommands = async (roomId: string): Promise<RoomCommandMessage[]> =>
  (await commandsFor(api, node.prefix)).filter(
    (c): c is RoomCommandMessage => c.kind === 'room' && c.room_id === roomId,
  );

const roomEvents = async (roomId: string) =>
  (await publishedEvents(api)).filter((e) => 'room_id' in e && e.room_id === roomId);

/** Sends `body` to `action` on a new room, answered 400 with `error` and `code`: that room's id. */
async function expectBadRequestOnNewRoom(
  action: string,
  body: unknown,
  error: string,
  code: string,
) {
  const roomId = await newRoom();
  const res = await control(roomId, action, body);
  expect(res.json()).toEqual({ success: false, error, code });
  expect(res.statusCode).toBe(400);
  return roomId;
}

/** Lets the next control through at once: the cooldown is asserted by its own tests. */
const clearControlCooldown = (roomId: string) =>
  api.redis.del(api.keys.cooldown('room', roomId, 'conference_control'));

describe('POST /conferences/{room_id}/play', () => {
  it('answers 202, marks the room playing, enqueues play and emits conference.play.started', async () => {
    const roomId = await newRoom();
    const res = await control(roomId, 'play', { urls: URLS });
    expect(res.statusCode).toBe(202);
    const body = res.json();
    expect(body).toEqual({ operation_id: expect.stringMatching(OPERATION), status: 'in_progress' });

    expect(await status(roomId)).toMatchObject({
      playback_status: 'playing',
      playback_urls: URLS,
      playback_operation_id: body.operation_id,
    });
    expect(await roomCommands(roomId)).toEqual([
      expect.objectContaining({
        kind: 'room',
        command: 'play',
        app_id: tenant.appId,
        operation_id: body.operation_id,
        args: { urls: URLS },
      }),
    ]);
    const events = await roomEvents(roomId);
    expect(events.filter((e) => e.event === 'conference.play.started')).toEqual([
      expect.objectContaining({
        room_id: roomId,
        urls: URLS,
        operation_id: body.operation_id,
        app_id: tenant.appId,
      }),
    ]);
  });

  it('a second play right away answers 429; another room is not affected', async () => {
    const roomId = await newRoom();
    const otherRoom = await newRoom();
    expect((await control(roomId, 'play', { urls: URLS })).statusCode).toBe(202);
    const again = await control(roomId, 'play', { urls: URLS });
    expect(again.statusCode).toBe(429);
    expect(again.json()).toEqual({
      success: false,
      error: 'Command rate limited',
      code: 'command_rate_limited',
    });
    expect(again.headers['retry-after']).toBe('2'); // the 2 s play cooldown, in whole seconds
    expect((await control(otherRoom, 'play', { urls: URLS })).statusCode).toBe(202);
    // The cooldown lasts 2 s; play does not hold up the 200 ms controls.
    const ttl = await api.redis.pttl(api.keys.cooldown('room', roomId, 'conf_play'));
    expect(ttl).toBeGreaterThan(1000);
    expect(ttl).toBeLessThanOrEqual(2000);
    expect((await control(roomId, 'pause')).statusCode).toBe(202);
    expect(await roomCommands(roomId)).toHaveLength(2);
  });

  const invalid: [string, unknown, string, string][] = [
    ['missing urls', {}, 'urls is required', 'urls_required'],
    ['empty urls', { urls: [] }, 'urls is required', 'urls_required'],
    [
      'a non-http url',
      { urls: ['ftp://example.com/a.wav'] },
      'urls.0 has an invalid format',
      'validation_failed',
    ],
    ['a relative url', { urls: ['a.wav'] }, 'urls.0 has an invalid format', 'validation_failed'],
    [
      'a non-array',
      { urls: 'https://example.com/a.wav' },
      'urls must be array',
      'validation_failed',
    ],
    [
      '129 urls',
      { urls: Array.from({ length: 129 }, (_, i) => `https://example.com/${i}.wav`) },
      'urls must NOT have more than 128 items',
      'validation_failed',
    ],
    [
      'an unknown field',
      { urls: URLS, loop: true },
      "body must not have property 'loop'",
      'validation_failed',
    ],
    ['unparseable JSON', '{"urls": [', 'Invalid request body', 'invalid_body'],
  ];
  it.each(invalid)('%s answers 400', async (_case, body, message, code) => {
    const roomId = await expectBadRequestOnNewRoom('play', body, message, code);
    expect(await roomCommands(roomId)).toEqual([]);
  });

  it('128 urls are accepted', async () => {
    const urls = Array.from({ length: 128 }, (_, i) => `https://example.com/${i}.wav`);
    expect((await control(await newRoom(), 'play', { urls })).statusCode).toBe(202);
  });

  it('without a JSON content type it answers 415', async () => {
    const roomId = await newRoom();
    const res = await control(roomId, 'play', { urls: URLS }, { 'content-type': 'text/plain' });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
    const none = await control(roomId, 'play');
    expect(none.statusCode).toBe(415);
  });
});

describe('POST /conferences/{room_id}/pause, stop, volume', () => {
  it('pause toggles playing and paused, each with its own operation_id', async () => {
    const roomId = await newRoom();
    const play = (await control(roomId, 'play', { urls: URLS })).json();
    const pause = await control(roomId, 'pause');
    expect(pause.statusCode).toBe(202);
    const paused = pause.json();
    expect(paused).toEqual({
      operation_id: expect.stringMatching(OPERATION),
      status: 'in_progress',
    });
    expect(paused.operation_id).not.toBe(play.operation_id);
    expect(await status(roomId)).toMatchObject({
      playback_status: 'paused',
      playback_operation_id: play.operation_id,
    });

    await clearControlCooldown(roomId);
    const resumed = (await control(roomId, 'pause')).json();
    expect((await status(roomId)).playback_status).toBe('playing');

    const events = (await roomEvents(roomId)).filter((e) => e.event === 'conference.play.paused');
    expect(events.map((e) => ('operation_id' in e ? e.operation_id : undefined))).toEqual([
      paused.operation_id,
      resumed.operation_id,
    ]);
    expect(events[0]).toEqual(
      expect.objectContaining({ event: 'conference.play.paused', room_id: roomId }),
    );
    const commands = await roomCommands(roomId);
    expect(commands.map((c) => [c.command, c.operation_id])).toEqual([
      ['play', play.operation_id],
      ['pause', paused.operation_id],
      ['pause', resumed.operation_id],
    ]);
  });

  it('pause with nothing playing is accepted and leaves the room stopped', async () => {
    const roomId = await newRoom();
    expect((await control(roomId, 'pause')).statusCode).toBe(202);
    expect((await status(roomId)).playback_status).toBe('stopped');
  });

  it('stop resets the playback fields and emits conference.play.stopped', async () => {
    const roomId = await newRoom();
    await control(roomId, 'play', { urls: URLS });
    const res = await control(roomId, 'stop');
    expect(res.statusCode).toBe(202);
    const { operation_id: operationId } = res.json();
    expect(await status(roomId)).toMatchObject({
      playback_status: 'stopped',
      playback_urls: [],
      playback_operation_id: '',
    });
    expect((await roomCommands(roomId)).at(-1)).toMatchObject({
      command: 'stop',
      operation_id: operationId,
    });
    expect((await roomEvents(roomId)).at(-1)).toMatchObject({
      event: 'conference.play.stopped',
      room_id: roomId,
      operation_id: operationId,
    });
  });

  it('volume sets playback_volume and emits conference.play.volume_changed', async () => {
    const roomId = await newRoom();
    const res = await control(roomId, 'volume', { volume: -12 });
    expect(res.statusCode).toBe(202);
    const { operation_id: operationId } = res.json();
    expect((await status(roomId)).playback_volume).toBe(-12);
    expect((await roomCommands(roomId)).at(-1)).toMatchObject({
      command: 'volume',
      operation_id: operationId,
      args: { volume: -12 },
    });
    expect((await roomEvents(roomId)).at(-1)).toMatchObject({
      event: 'conference.play.volume_changed',
      room_id: roomId,
      volume: -12,
      operation_id: operationId,
    });
  });

  it.each([-50, 7, 0])('volume %s is accepted', async (volume) => {
    const roomId = await newRoom();
    expect((await control(roomId, 'volume', { volume })).statusCode).toBe(202);
    expect((await status(roomId)).playback_volume).toBe(volume);
  });

  const badVolumes: [string, unknown, string, string][] = [
    ['-51', { volume: -51 }, 'volume must be >= -50', 'validation_failed'],
    ['8', { volume: 8 }, 'volume must be <= 7', 'validation_failed'],
    ['1.5', { volume: 1.5 }, 'volume must be integer', 'validation_failed'],
    ['a string', { volume: '3' }, 'volume must be integer', 'validation_failed'],
    ['missing', {}, 'volume is required', 'validation_failed'],
    ['unparseable JSON', '{"volume": ', 'Invalid request body', 'invalid_body'],
  ];
  it.each(badVolumes)('volume %s answers 400', async (_case, body, message, code) => {
    await expectBadRequestOnNewRoom('volume', body, message, code);
  });

  it('volume without a JSON content type answers 415', async () => {
    const res = await control(
      await newRoom(),
      'volume',
      { volume: 1 },
      { 'content-type': 'text/plain' },
    );
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
  });

  it('pause and stop need no body or content type, and accept an empty JSON one', async () => {
    const roomId = await newRoom();
    expect((await control(roomId, 'stop')).statusCode).toBe(202);
    await clearControlCooldown(roomId);
    const withType = await control(roomId, 'pause', undefined, json);
    expect(withType.statusCode).toBe(202);
  });

  it('a body sent to pause or stop anyway is ignored, not passed on to the media node', async () => {
    const roomId = await newRoom();
    const deep = `${'{"a":'.repeat(2000)}1${'}'.repeat(2000)}`;
    expect((await control(roomId, 'pause', { volume: 99, urls: ['x'] })).statusCode).toBe(202);
    await clearControlCooldown(roomId);
    expect((await control(roomId, 'stop', { nested: { deep: [1, 2] } })).statusCode).toBe(202);
    const commands = await roomCommands(roomId);
    expect(commands.map((c) => [c.command, c.args])).toEqual([
      ['pause', {}],
      ['stop', {}],
    ]);
    // JSON nested 2,000 deep is refused before it is parsed.
    await clearControlCooldown(roomId);
    const refused = await control(roomId, 'stop', deep);
    expect([refused.statusCode, refused.json()]).toEqual([
      400,
      { success: false, error: 'Invalid request body', code: 'invalid_body' },
    ]);
  });

  it('pause, stop and volume share a 200 ms cooldown per room; another room is not affected', async () => {
    const roomId = await newRoom();
    const otherRoom = await newRoom();
    expect((await control(roomId, 'pause')).statusCode).toBe(202);
    for (const [action, body] of [['stop'], ['volume', { volume: 1 }], ['pause']] as const) {
      const res = await control(roomId, action, body);
      expect(res.statusCode).toBe(429);
      expect(res.json()).toEqual({
        success: false,
        error: 'Command rate limited',
        code: 'command_rate_limited',
      });
    }
    const ttl = await api.redis.pttl(api.keys.cooldown('room', roomId, 'conference_control'));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
    expect((await control(otherRoom, 'stop')).statusCode).toBe(202);
    // Refused controls change nothing and enqueue nothing.
    expect((await roomCommands(roomId)).map((c) => c.command)).toEqual(['pause']);
    expect((await status(roomId)).playback_volume).toBe(0);
  });

  it.each(['play', 'pause', 'stop', 'volume'])(
    '%s on an unknown or malformed room answers 404',
    async (action) => {
      const body =
        action === 'play' ? { urls: URLS } : action === 'volume' ? { volume: 1 } : undefined;
      for (const roomId of ['abcde-room-00000000-0000-4000-8000-000000000000', 'nope']) {
        const res = await control(roomId, action, body);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toEqual({
          success: false,
          error: 'Room not found',
          code: 'room_not_found',
        });
      }
    },
  );

  it('the controls count against the app rate limit', async () => {
    const limited = await createTenant(api, { rate_limit: 2 });
    const roomId = await newRoom(limited);
    expect((await control(roomId, 'pause', undefined, {}, limited)).statusCode).toBe(202);
    const res = await control(roomId, 'stop', undefined, {}, limited);
    expect(res.statusCode).toBe(429);
    expect(res.json()).toEqual({
      success: false,
      error: 'Rate limit exceeded',
      code: 'rate_limited',
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  });
});
