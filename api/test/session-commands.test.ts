import { randomUUID } from 'node:crypto';
import type { CommandMessage } from '@voicegw/shared';
import { describe, expect, it } from 'vitest';
import {
  commandsFor,
  createTenant,
  json,
  liveNode,
  seedSession,
  useApiWithNode,
  withApi,
  type TestTenant,
} from './helpers.js';

const { api, tenant, node } = useApiWithNode({ RECORDING_SERVICE_URL: 'ws://127.0.0.1:9/record' });

function post(
  session: string,
  command: string,
  body?: unknown,
  headers: Record<string, string> = {},
  as: TestTenant = tenant,
) {
  return api.app.inject({
    method: 'POST',
    url: `/api/v1/sessions/${session}/commands/${command}`,
    headers: { ...as.headers, ...(body === undefined ? {} : json), ...headers },
    ...(body === undefined
      ? {}
      : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
}

const newSession = () => seedSession(api, tenant, node.prefix);
const lastCommand = async () => (await commandsFor(api, node.prefix)).at(-1);
const deferred = {
  operation_id: expect.stringMatching(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  ),
  status: 'in_progress',
  timeout_ms: 2000,
};
const URL = 'https://media.example.com/prompt.wav';

describe('every command is accepted and enqueued for the owning node', () => {
  const cases: [string, unknown, Record<string, unknown>][] = [
    ['answer', undefined, {}],
    ['hangup', undefined, { cause: 'NORMAL_CLEARING' }],
    ['hangup', { cause: 'USER_BUSY' }, { cause: 'USER_BUSY' }],
    ['disconnect', undefined, {}],
    ['playback/start', { urls: [URL] }, { urls: [URL] }],
    ['playback/start', { urls: [URL], offset_sec: 30 }, { urls: [URL], offset_sec: 30 }],
    ['playback/stop', undefined, {}],
    ['playback/pause', undefined, {}],
    ['playback/resume', undefined, {}],
    ['playback/seek', { position_ms: -1500 }, { position_ms: -1500 }],
    ['playback/restart', undefined, {}],
    ['playback/silence', undefined, {}],
    [
      'play_and_get_digits',
      { prompt_files: [URL] },
      {
        prompt_files: [URL],
        min_digits: 1,
        max_digits: 10,
        max_tries: 3,
        timeout: 5000,
        terminators: '#',
      },
    ],
    ['record/start', undefined, {}],
    ['record/stop', undefined, {}],
  ];

  it.each(cases)('%s %j answers 202 with the deferred envelope', async (command, body, args) => {
    const session = await newSession();
    const res = await post(session, command, body);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual(deferred);
    expect(await lastCommand()).toEqual({
      kind: 'session',
      command,
      session_id: session,
      app_id: tenant.appId,
      operation_id: res.json().operation_id,
      command_uid: expect.any(String),
      args,
      issued_at: expect.any(Number),
    });
  });

  it('keeps a caller-supplied command_uid and generates one otherwise', async () => {
    const session = await newSession();
    await post(session, 'answer', { command_uid: 'my.uid-1_A' });
    expect((await lastCommand())?.kind === 'session' && (await lastCommand())).toMatchObject({
      command_uid: 'my.uid-1_A',
    });
    await post(session, 'hangup');
    const generated = await lastCommand();
    expect(generated).toMatchObject({ command_uid: expect.stringMatching(/^[0-9a-f-]{36}$/) });
  });

  it('accepts a JSON content type with charset and an empty body on bodyless commands', async () => {
    const session = await newSession();
    const res = await api.app.inject({
      method: 'POST',
      url: `/api/v1/sessions/${session}/commands/answer`,
      headers: { ...tenant.headers, 'content-type': 'application/json; charset=utf-8' },
      payload: '',
    });
    expect(res.statusCode).toBe(202);
  });
});

describe('rejections', () => {
  const cases: [string, string, unknown, number, string, string][] = [
    ['unknown command', 'dance', undefined, 400, 'Invalid command', 'invalid_command'],
    [
      'unknown sub-command',
      'playback/rewind',
      undefined,
      400,
      'Invalid command',
      'invalid_command',
    ],
    ['missing urls', 'playback/start', {}, 400, 'urls is required', 'urls_required'],
    ['empty urls', 'playback/start', { urls: [] }, 400, 'urls is required', 'urls_required'],
    ['missing prompt_files', 'play_and_get_digits', {}, 400, 'urls is required', 'urls_required'],
    [
      'ftp url',
      'playback/start',
      { urls: ['ftp://x/y.wav'] },
      400,
      'urls.0 has an invalid format',
      'validation_failed',
    ],
    [
      'url over 2048 chars',
      'playback/start',
      { urls: [`https://x/${'a'.repeat(2040)}`] },
      400,
      'urls.0 must NOT have more than 2048 characters',
      'validation_failed',
    ],
    [
      '129 urls',
      'playback/start',
      { urls: Array(129).fill(URL) },
      400,
      'urls must NOT have more than 128 items',
      'validation_failed',
    ],
    [
      'offset with two urls',
      'playback/start',
      { urls: [URL, URL], offset_sec: 3 },
      400,
      'offset_sec is not allowed with multiple URLs',
      'validation_failed',
    ],
    [
      'offset over a day',
      'playback/start',
      { urls: [URL], offset_sec: 86_401 },
      400,
      'offset_sec must be <= 86400',
      'validation_failed',
    ],
    [
      'zero seek',
      'playback/seek',
      { position_ms: 0 },
      400,
      'position_ms must be non-zero',
      'validation_failed',
    ],
    ['missing seek', 'playback/seek', {}, 400, 'position_ms is required', 'validation_failed'],
    [
      'bad command_uid',
      'answer',
      { command_uid: 'has space' },
      400,
      'Invalid command_uid format',
      'invalid_command_uid',
    ],
    [
      'long command_uid',
      'answer',
      { command_uid: 'a'.repeat(129) },
      400,
      'Invalid command_uid format',
      'invalid_command_uid',
    ],
    [
      'lowercase cause',
      'hangup',
      { cause: 'normal' },
      400,
      'cause has an invalid format',
      'validation_failed',
    ],
    [
      'field on record/start',
      'record/start',
      { format: 'mp3' },
      400,
      "body must not have property 'format'",
      'validation_failed',
    ],
    [
      'min over max digits',
      'play_and_get_digits',
      { prompt_files: [URL], min_digits: 5, max_digits: 4 },
      400,
      'min_digits must be <= max_digits',
      'validation_failed',
    ],
    [
      'total timeout over 120 s',
      'play_and_get_digits',
      { prompt_files: [URL], timeout: 60_000, max_tries: 3 },
      400,
      'timeout * max_tries must be <= 120000',
      'validation_failed',
    ],
    [
      'timeout under 1 s',
      'play_and_get_digits',
      { prompt_files: [URL], timeout: 999 },
      400,
      'timeout must be >= 1000',
      'validation_failed',
    ],
    [
      'bad terminator',
      'play_and_get_digits',
      { prompt_files: [URL], terminators: '1' },
      400,
      'terminators has an invalid format',
      'validation_failed',
    ],
    [
      'bad invalid_files url',
      'play_and_get_digits',
      { prompt_files: [URL], invalid_files: ['x'] },
      400,
      'invalid_files.0 has an invalid format',
      'validation_failed',
    ],
    [
      'max_tries over 10',
      'play_and_get_digits',
      { prompt_files: [URL], max_tries: 11 },
      400,
      'max_tries must be <= 10',
      'validation_failed',
    ],
    [
      'bad room id',
      'conference/join',
      { room_id: 'nope' },
      400,
      'room_id has an invalid format',
      'validation_failed',
    ],
    [
      'unparseable JSON',
      'playback/start',
      '{"urls": [',
      400,
      'Invalid request body',
      'invalid_body',
    ],
  ];

  it.each(cases)('%s answers %s', async (_name, command, body, status, message, code) => {
    const res = await post(await newSession(), command, body);
    expect(res.json()).toEqual({ success: false, error: message, code });
    expect(res.statusCode).toBe(status);
  });

  it('a command body without a JSON content type answers 415', async () => {
    const session = await newSession();
    const noType = await api.app.inject({
      method: 'POST',
      url: `/api/v1/sessions/${session}/commands/playback/start`,
      headers: tenant.headers,
    });
    expect(noType.statusCode).toBe(415);
    expect(noType.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
    const textType = await post(session, 'playback/start', JSON.stringify({ urls: [URL] }), {
      'content-type': 'text/plain',
    });
    expect(textType.statusCode).toBe(415);
    expect(textType.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
  });

  it('a non-JSON body on a command whose body is optional answers 415', async () => {
    const res = await post(await newSession(), 'hangup', 'cause=USER_BUSY', {
      'content-type': 'text/plain',
    });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toEqual({
      success: false,
      error: 'Content-Type must be application/json',
      code: 'unsupported_media_type',
    });
  });

  it('a body over 64 KiB answers 413', async () => {
    const res = await post(await newSession(), 'playback/start', {
      urls: [URL],
      command_uid: 'x',
      pad: 'y'.repeat(70 * 1024),
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({
      success: false,
      error: 'Request body too large',
      code: 'body_too_large',
    });
  });

  /** record/start on a fresh api with `env`. */
  function recordStartWith(env: Record<string, string>) {
    return withApi(env, async (bare) => {
      const who = await createTenant(bare);
      const prefix = await liveNode(bare);
      const session = await seedSession(bare, who, prefix);
      return await bare.app.inject({
        method: 'POST',
        url: `/api/v1/sessions/${session}/commands/record/start`,
        headers: who.headers,
      });
    });
  }

  it('record/start answers 503 in stream mode when no recording service is configured', async () => {
    const res = await recordStartWith({ RECORDING_MODE: 'stream' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      success: false,
      error: 'Recording not available',
      code: 'recording_unavailable',
    });
  });

  it('record/start answers 503 when recording is off', async () => {
    const res = await recordStartWith({ RECORDING_MODE: 'off' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({
      success: false,
      error: 'Recording not available',
      code: 'recording_unavailable',
    });
  });

  it('record/start is accepted in file mode (the default) without any recording service', async () => {
    const res = await recordStartWith({});
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({ status: 'in_progress' });
  });
});

describe('ownership', () => {
  it('an unknown or malformed session answers 404', async () => {
    for (const id of [`${node.prefix}-${randomUUID()}`, 'not-a-session']) {
      const res = await post(id, 'answer');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toEqual({
        success: false,
        error: 'Session not found',
        code: 'session_not_found',
      });
    }
  });

  it("another app's session answers 403 and nothing is enqueued", async () => {
    const other = await createTenant(api);
    const session = await newSession();
    const before = (await commandsFor(api, node.prefix)).length;
    for (const command of [
      'answer',
      'hangup',
      'playback/stop',
      'conference/leave',
      'conference/mute',
    ]) {
      const res = await post(session, command, undefined, {}, other);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: 'Session belongs to a different application',
        code: 'session_forbidden',
      });
    }
    expect(await commandsFor(api, node.prefix)).toHaveLength(before);
  });

  it('an ended session answers 404', async () => {
    const session = await newSession();
    await api.redis.hset(api.keys.session(session), 'ended_at', String(Date.now()));
    const res = await post(session, 'answer');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: 'Session not found',
      code: 'session_not_found',
    });
  });

  it('a session whose media node heartbeat expired answers 404', async () => {
    const gone = await liveNode(api);
    const session = await seedSession(api, tenant, gone);
    await api.redis.del(api.keys.nodeHeartbeat(gone));
    const res = await post(session, 'answer');
    expect(res.statusCode).toBe(404);
    expect(res.json()).toEqual({
      success: false,
      error: 'Session not found',
      code: 'session_not_found',
    });
  });
});

describe('idempotency', () => {
  it('a repeated command_uid answers the original 202 body and is enqueued once', async () => {
    const session = await newSession();
    const first = await post(session, 'playback/start', { urls: [URL], command_uid: 'again' });
    const second = await post(session, 'playback/start', { urls: [URL], command_uid: 'again' });
    expect(second.statusCode).toBe(202);
    expect(second.json()).toEqual(first.json());
    const mine = (await commandsFor(api, node.prefix)).filter(
      (c) => c.kind === 'session' && c.session_id === session,
    );
    expect(mine).toHaveLength(1);
  });

  it('only a caller-supplied command_uid is remembered', async () => {
    const session = await newSession();
    await post(session, 'answer');
    await post(session, 'answer', { command_uid: 'kept' });
    const claims = await api.redis.keys(`${api.keys.prefix}:claim:${tenant.appId}:${session}:*`);
    expect(claims).toEqual([api.keys.commandClaim(tenant.appId, session, 'kept')]);
    expect(await api.redis.pttl(claims[0]!)).toBeGreaterThan(86_000_000);
  });

  it('commands arriving together are answered each on its own, a failing one alone with 500', async () => {
    const [good, other] = [await newSession(), await newSession()];
    const broken = await newSession();
    // A key of the wrong type: its command raises an error in the batch script run they share.
    await api.redis.del(api.keys.session(broken));
    await api.redis.set(api.keys.session(broken), 'not a hash');
    const replies = await Promise.all([
      post(good, 'answer'),
      post(broken, 'answer'),
      post(other, 'hangup'),
      post(`${node.prefix}-${randomUUID()}`, 'answer'),
    ]);
    expect(replies.map((r) => r.statusCode)).toEqual([202, 500, 202, 404]);
    expect(replies[1]?.json()).toEqual({
      success: false,
      error: 'Internal server error',
      code: 'internal',
    });
    const commands = (await commandsFor(api, node.prefix)).filter(
      (c) => c.kind === 'session' && [good, other, broken].includes(c.session_id),
    );
    expect(commands.map((c) => c.kind === 'session' && c.session_id)).toEqual([good, other]);
  });

  it('50 parallel requests with one command_uid give one stream entry and one operation', async () => {
    const session = await newSession();
    const replies = await Promise.all(
      Array.from({ length: 50 }, () => post(session, 'answer', { command_uid: 'storm' })),
    );
    expect(replies.every((r) => r.statusCode === 202)).toBe(true);
    expect(new Set(replies.map((r) => r.json().operation_id)).size).toBe(1);
    const mine = (await commandsFor(api, node.prefix)).filter(
      (c) => c.kind === 'session' && c.session_id === session,
    );
    expect(mine).toHaveLength(1);
  });
});

describe('a command_uid reused for another command or body', () => {
  const REUSED = {
    success: false,
    error: 'command_uid was already used on this session for a different command or body',
    code: 'command_uid_reused',
  };
  const commandName = (c: CommandMessage) => (c.kind === 'session' ? c.command : c.kind);
  const sessionCommands = async (session: string) =>
    (await commandsFor(api, node.prefix)).filter(
      (c) => c.kind === 'session' && c.session_id === session,
    );

  it.each([
    ['hangup', undefined],
    ['conference/join', 'room'],
    ['conference/leave', undefined],
    ['conference/mute', undefined],
    ['conference/unmute', undefined],
    ['playback/stop', undefined],
  ])('answer then %s under the same uid answers 422 and changes nothing', async (command, room) => {
    const session = await newSession();
    const roomId = room ? await createRoom() : undefined;
    if (command !== 'conference/join' && command.startsWith('conference/')) {
      await joinedMember(session, command === 'conference/unmute');
    }
    const before = await api.redis.hgetall(api.keys.session(session));
    expect((await post(session, 'answer', { command_uid: 'X' })).statusCode).toBe(202);
    const res = await post(session, command, {
      command_uid: 'X',
      ...(roomId ? { room_id: roomId } : {}),
    });
    expect([res.statusCode, res.json()]).toEqual([422, REUSED]);
    expect((await sessionCommands(session)).map(commandName)).toEqual(['answer']);
    expect(await api.redis.hgetall(api.keys.session(session))).toEqual(before);
  });

  it('a membership command under an answered uid is refused, and the join replays its own 202', async () => {
    const session = await newSession();
    const room = await createRoom();
    const join = await post(session, 'conference/join', { room_id: room, command_uid: 'J' });
    expect([join.statusCode, join.json()]).toEqual([202, { status: 'joining', room_id: room }]);
    const again = await post(session, 'conference/join', { room_id: room, command_uid: 'J' });
    expect([again.statusCode, again.json()]).toEqual([202, { status: 'joining', room_id: room }]);
    for (const command of ['answer', 'hangup', 'conference/leave']) {
      const res = await post(session, command, { command_uid: 'J' });
      expect([res.statusCode, res.json()]).toEqual([422, REUSED]);
    }
    expect((await sessionCommands(session)).map(commandName)).toEqual(['conference/join']);
  });

  it('the same command with another body answers 422; the same body in another key order replays', async () => {
    const session = await newSession();
    const first = await post(session, 'play_and_get_digits', {
      command_uid: 'D',
      prompt_files: [URL],
      max_digits: 4,
    });
    expect(first.statusCode).toBe(202);
    // Defaults spelled out and keys in another order: the same request.
    const same = await post(session, 'play_and_get_digits', {
      min_digits: 1,
      max_digits: 4,
      prompt_files: [URL],
      command_uid: 'D',
    });
    expect([same.statusCode, same.json()]).toEqual([202, first.json()]);
    const other = await post(session, 'play_and_get_digits', {
      command_uid: 'D',
      prompt_files: [URL],
      max_digits: 5,
    });
    expect([other.statusCode, other.json()]).toEqual([422, REUSED]);
    expect(await sessionCommands(session)).toHaveLength(1);
  });

  it('a claim written before fingerprints existed is still replayed', async () => {
    const session = await newSession();
    const original = { operation_id: randomUUID(), status: 'in_progress', timeout_ms: 2000 };
    const claim = api.keys.commandClaim(tenant.appId, session, 'old');
    await api.redis.set(claim, JSON.stringify(original), 'PX', 60_000);
    const res = await post(session, 'hangup', { command_uid: 'old' });
    expect([res.statusCode, res.json()]).toEqual([202, original]);
    expect(await sessionCommands(session)).toHaveLength(0);
  });
});

describe('cooldown groups', () => {
  // Group, first command and body, second command and body, the Retry-After of the second's 429
  // (the group's window in whole seconds, at least 1).
  const groups: [string, string, unknown, string, unknown, string][] = [
    ['seek', 'playback/pause', undefined, 'playback/seek', { position_ms: 100 }, '1'],
    ['playback', 'playback/start', { urls: [URL] }, 'playback/silence', undefined, '1'],
    ['heavy', 'record/start', undefined, 'record/stop', undefined, '2'],
    ['heavy', 'play_and_get_digits', { prompt_files: [URL] }, 'record/start', undefined, '2'],
    ['conference_mute', 'conference/mute', undefined, 'conference/unmute', undefined, '2'],
  ];

  it.each(groups)(
    '%s: %s then %s at once answers 429 with Retry-After',
    async (_group, first, firstBody, second, secondBody, retryAfter) => {
      const session = await newSession();
      if (first.startsWith('conference/')) await joinedMember(session, false);
      const a = await post(session, first, firstBody);
      expect(a.statusCode).toBe(202);
      const b = await post(session, second, secondBody);
      expect(b.statusCode).toBe(429);
      expect(b.json()).toEqual({
        success: false,
        error: 'Command rate limited',
        code: 'command_rate_limited',
      });
      expect(b.headers['retry-after']).toBe(retryAfter);
    },
  );

  it('the seek group cools down after 100 ms, and other sessions are never held up', async () => {
    const session = await newSession();
    expect((await post(session, 'playback/pause')).statusCode).toBe(202);
    expect((await post(await newSession(), 'playback/pause')).statusCode).toBe(202);
    expect((await post(session, 'playback/resume')).statusCode).toBe(429);
    await new Promise((r) => setTimeout(r, 120));
    expect((await post(session, 'playback/resume')).statusCode).toBe(202);
  });

  it('answer, hangup and disconnect have no cooldown', async () => {
    const session = await newSession();
    for (const command of ['answer', 'answer', 'hangup', 'hangup', 'disconnect', 'disconnect']) {
      expect((await post(session, command)).statusCode).toBe(202);
    }
  });
});

/** Puts a session straight into a room's joined state, as the media node does on confirmation. */
async function joinedMember(
  session: string,
  muted: boolean,
  roomId = `${node.prefix}-room-${randomUUID()}`,
) {
  await api.redis.hset(api.keys.session(session), {
    conf_state: 'joined',
    conf_room: roomId,
    conf_muted: muted ? '1' : '0',
    conf_member_id: '7',
  });
  return roomId;
}

/** The commands of a member in a room, refused alike when there is no joined member. */
const MEMBER_COMMANDS = ['conference/leave', 'conference/mute', 'conference/unmute'];

/** Posts `command` for `session`: it must be answered `status` with `error` and `code`. */
async function expectRefused(
  session: string,
  command: string,
  status: number,
  error: string,
  code: string,
) {
  const res = await post(session, command);
  expect(res.statusCode).toBe(status);
  expect(res.json()).toEqual({ success: false, error, code });
}

async function createRoom(owner: TestTenant = tenant): Promise<string> {
  const id = `${node.prefix}-room-${randomUUID()}`;
  await api.redis.hset(api.keys.room(id), {
    app_id: owner.appId,
    name: `r${randomUUID()}`,
    node: node.prefix,
  });
  return id;
}

describe('conference membership rules', () => {
  it('join answers 202 joining, the member joins muted, and the join is enqueued', async () => {
    const session = await newSession();
    const room = await createRoom();
    const res = await post(session, 'conference/join', { room_id: room });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ status: 'joining', room_id: room });
    expect(
      await api.redis.hmget(api.keys.session(session), 'conf_state', 'conf_room', 'conf_muted'),
    ).toEqual(['joining', room, '1']);
    expect(await api.redis.zscore(api.keys.roomMembers(room), session)).not.toBeNull();
    expect(await lastCommand()).toMatchObject({
      command: 'conference/join',
      args: { room_id: room },
    });
  });

  it('join of an unknown room answers 404 and of another app’s room 403', async () => {
    const unknown = await post(await newSession(), 'conference/join', {
      room_id: `${node.prefix}-room-${randomUUID()}`,
    });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toEqual({
      success: false,
      error: 'Room not found',
      code: 'room_not_found',
    });
    const foreign = await post(await newSession(), 'conference/join', {
      room_id: await createRoom(await createTenant(api)),
    });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toEqual({
      success: false,
      error: 'Room belongs to a different application',
      code: 'room_forbidden',
    });
  });

  it('join of the same room when joined answers 200 already_joined without enqueueing', async () => {
    const session = await newSession();
    const room = await joinedMember(session, true, await createRoom());
    const before = (await commandsFor(api, node.prefix)).length;
    const res = await post(session, 'conference/join', { room_id: room });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'already_joined', room_id: room });
    expect(await commandsFor(api, node.prefix)).toHaveLength(before);
  });

  it('join of a different room answers 409', async () => {
    const session = await newSession();
    await joinedMember(session, true, await createRoom());
    const res = await post(session, 'conference/join', { room_id: await createRoom() });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({
      success: false,
      error: 'Session is already in a different conference room; use conference/leave first',
      code: 'in_different_room',
    });
  });

  it('leave, mute and unmute while joining answer 409', async () => {
    const session = await newSession();
    await post(session, 'conference/join', { room_id: await createRoom() });
    await new Promise((r) => setTimeout(r, 5));
    for (const command of MEMBER_COMMANDS) {
      await api.redis.del(api.keys.cooldown('sess', session, 'conference'));
      await expectRefused(
        session,
        command,
        409,
        'Member is still joining the conference',
        'still_joining',
      );
    }
  });

  it('leave, mute and unmute outside a room answer 404', async () => {
    const session = await newSession();
    for (const command of MEMBER_COMMANDS) {
      await expectRefused(
        session,
        command,
        404,
        'Session is not in a conference',
        'not_in_conference',
      );
    }
  });

  it('mute when muted and unmute when unmuted answer 409', async () => {
    const muted = await newSession();
    await joinedMember(muted, true);
    const again = await post(muted, 'conference/mute');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      success: false,
      error: 'Member is already muted',
      code: 'already_muted',
    });
    const unmuted = await newSession();
    await joinedMember(unmuted, false);
    const twice = await post(unmuted, 'conference/unmute');
    expect(twice.statusCode).toBe(409);
    expect(twice.json()).toEqual({
      success: false,
      error: 'Member is already unmuted',
      code: 'already_unmuted',
    });
  });

  it('unmute, mute and leave of a joined member answer 202 with the room', async () => {
    const session = await newSession();
    const room = await joinedMember(session, true);
    const unmute = await post(session, 'conference/unmute');
    expect(unmute.statusCode).toBe(202);
    expect(unmute.json()).toEqual({ status: 'unmuted', room_id: room });
    await api.redis.del(api.keys.cooldown('sess', session, 'conference_mute'));
    const mute = await post(session, 'conference/mute');
    expect(mute.json()).toEqual({ status: 'muted', room_id: room });
    const leave = await post(session, 'conference/leave');
    expect(leave.statusCode).toBe(202);
    expect(leave.json()).toEqual({ status: 'leaving', room_id: room });
    expect(await api.redis.hget(api.keys.session(session), 'conf_state')).toBe('leaving');
  });

  it('conference/leave needs no content type', async () => {
    const session = await newSession();
    await joinedMember(session, true);
    const res = await api.app.inject({
      method: 'POST',
      url: `/api/v1/sessions/${session}/commands/conference/leave`,
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(202);
  });
});
