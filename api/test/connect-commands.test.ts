import { randomUUID } from 'node:crypto';
import {
  createLogger,
  failDeadNodeCommands,
  LuaScripts,
  NODE_LOST,
  parseSession,
  type BridgeState,
  type SessionCommandMessage,
} from '@voicegw/shared';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  commandsFor,
  createTenant,
  json,
  liveNode,
  publishedEvents,
  seedSession,
  useApiWithNode,
  type TestTenant,
} from './helpers.js';

// The api side of connecting calls: bridge, unbridge and transfer, who may be bridged (decided
// in sessionCommands-n.lua on both sessions' hashes), the fields they write, a transfer's new
// leg, and the commands a bridge excludes (docs/decisions/connecting-calls.md).

const { api, tenant, node } = useApiWithNode();
/** A second live node: a peer there is bridged over a SIP leg, by the commanded session's node. */
let otherNode: string;

const FROM = '0731234567';
const TO = '0521234567';
const URL = 'https://media.example.com/prompt.wav';

beforeAll(async () => {
  otherNode = await liveNode(api);
  await api.redis.sadd(api.keys.appCids(tenant.appId), FROM);
});

function post(session: string, command: string, body?: unknown, as: TestTenant = tenant) {
  return api.app.inject({
    method: 'POST',
    url: `/api/v1/sessions/${session}/commands/${command}`,
    headers: { ...as.headers, ...(body === undefined ? {} : json) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** A live, answered session of `owner` on `prefix`. */
const answered = (prefix = node.prefix, owner: TestTenant = tenant) =>
  seedSession(api, owner, prefix, { answered_at: Date.now() });
const record = async (session: string) =>
  parseSession(await api.redis.hgetall(api.keys.session(session)));
/** Sets a session's bridge fields, as the script or the media node would. */
const setBridge = (session: string, state: BridgeState, peer: string, uid = 'uid-1') =>
  api.redis.hset(api.keys.session(session), {
    bridge_state: state,
    bridge_peer: peer,
    bridge_uid: uid,
  });
/** As if the connect cooldown had passed. */
const coolDown = (session: string) => api.redis.del(api.keys.cooldown('sess', session, 'connect'));
const sessionCommands = async (session: string, prefix = node.prefix) =>
  (await commandsFor(api, prefix)).filter(
    (c): c is SessionCommandMessage => c.kind === 'session' && c.session_id === session,
  );

const OPERATION_ID = expect.stringMatching(
  /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
);
const deferred = { operation_id: OPERATION_ID, status: 'in_progress', timeout_ms: 2000 };
const refused = (error: string, code: string, extra: Record<string, unknown> = {}) => ({
  success: false,
  error,
  code,
  ...extra,
});
const about = (session: 'self' | 'peer') => ({ detail: { session } });

/** Expects `command` on `session` to be refused, changing nothing of it or of `peer`. */
async function expectRefused(
  session: string,
  command: string,
  body: unknown,
  [status, error, code, extra]: [number, string, string, Record<string, unknown>?],
  peer?: string,
) {
  const both = () => Promise.all([session, ...(peer ? [peer] : [])].map(record));
  const before = await both();
  const res = await post(session, command, body);
  expect([res.statusCode, res.json()]).toEqual([status, refused(error, code, extra)]);
  expect(await both()).toEqual(before);
  expect(await sessionCommands(session)).toEqual([]);
}

describe('bridge', () => {
  it("answers 202, marks both sessions bridging with each other, and enqueues it on the commanded session's node", async () => {
    const [a, b] = [await answered(), await answered(otherNode)];
    const res = await post(a, 'bridge', { session_uuid: b, command_uid: 'connect-1' });
    expect([res.statusCode, res.json()]).toEqual([202, deferred]);
    expect((await record(a)).bridge).toEqual({
      bridge_state: 'bridging',
      bridge_peer: b,
      bridge_uid: 'connect-1',
    });
    expect((await record(b)).bridge).toEqual({
      bridge_state: 'bridging',
      bridge_peer: a,
      bridge_uid: 'connect-1',
    });
    expect(await sessionCommands(a)).toEqual([
      {
        kind: 'session',
        command: 'bridge',
        session_id: a,
        app_id: tenant.appId,
        operation_id: res.json().operation_id,
        command_uid: 'connect-1',
        args: { session_uuid: b },
        issued_at: expect.any(Number),
      },
    ]);
    // The peer's node learns of the bridge from Redis, not from a message of its own.
    expect(await commandsFor(api, otherNode)).toEqual([]);
  });

  it('bridge_uid is the generated command_uid when none is given', async () => {
    const [a, b] = [await answered(), await answered()];
    expect((await post(a, 'bridge', { session_uuid: b })).statusCode).toBe(202);
    const [message] = await sessionCommands(a);
    expect((await record(b)).bridge?.bridge_uid).toBe(message?.command_uid);
  });

  describe('answers 400 for a bad body', () => {
    const cases: [string, unknown, string, string][] = [
      ['no session_uuid', {}, 'session_uuid is required', 'validation_failed'],
      [
        'a session_uuid that is no session id',
        { session_uuid: 'abcde-not-a-uuid' },
        'session_uuid has an invalid format',
        'validation_failed',
      ],
      [
        'a room id for session_uuid',
        { session_uuid: `abcde-room-${randomUUID()}` },
        'session_uuid has an invalid format',
        'validation_failed',
      ],
      [
        'an unknown field',
        { session_uuid: `abcde-${randomUUID()}`, peer: 'x' },
        "body must not have property 'peer'",
        'validation_failed',
      ],
      [
        'a bad command_uid',
        { session_uuid: `abcde-${randomUUID()}`, command_uid: 'a b' },
        'Invalid command_uid format',
        'invalid_command_uid',
      ],
    ];
    it.each(cases)('%s', async (_case, body, error, code) => {
      const a = await answered();
      await expectRefused(a, 'bridge', body, [400, error, code]);
    });
  });

  it('to itself answers 400 bridge_to_itself', async () => {
    const a = await answered();
    await expectRefused(a, 'bridge', { session_uuid: a }, [
      400,
      'A session cannot be bridged to itself',
      'bridge_to_itself',
    ]);
  });

  it('without a body answers 415', async () => {
    const a = await answered();
    const res = await post(a, 'bridge');
    expect(res.statusCode).toBe(415);
  });

  it('to an unknown session, an ended one, or one whose node is gone answers 404 peer_not_found', async () => {
    const a = await answered();
    const ended = await answered();
    await api.redis.hset(api.keys.session(ended), 'ended_at', Date.now());
    const deadNode = await liveNode(api);
    const orphan = await answered(deadNode);
    await api.redis.del(api.keys.nodeHeartbeat(deadNode));
    for (const peer of [`${node.prefix}-${randomUUID()}`, ended, orphan]) {
      await expectRefused(
        a,
        'bridge',
        { session_uuid: peer },
        [404, 'Peer session not found', 'peer_not_found'],
        peer,
      );
    }
  });

  it("to another app's session answers 403 peer_forbidden", async () => {
    const other = await createTenant(api);
    const [a, b] = [await answered(), await answered(node.prefix, other)];
    await expectRefused(
      a,
      'bridge',
      { session_uuid: b },
      [403, 'The peer session belongs to a different application', 'peer_forbidden'],
      b,
    );
  });

  it("of an unknown session answers 404, of another app's 403", async () => {
    const other = await createTenant(api);
    const b = await answered();
    const res = await post(`${node.prefix}-${randomUUID()}`, 'bridge', { session_uuid: b });
    expect([res.statusCode, res.json()]).toEqual([
      404,
      refused('Session not found', 'session_not_found'),
    ]);
    const theirs = await answered(node.prefix, other);
    await expectRefused(
      theirs,
      'bridge',
      { session_uuid: b },
      [403, 'Session belongs to a different application', 'session_forbidden'],
      b,
    );
  });

  it('of a session not answered, or to one, answers 409 not_answered naming which', async () => {
    const ringing = await seedSession(api, tenant, node.prefix);
    const up = await answered();
    await expectRefused(
      ringing,
      'bridge',
      { session_uuid: up },
      [409, 'Session is not answered', 'not_answered', about('self')],
      up,
    );
    await expectRefused(
      up,
      'bridge',
      { session_uuid: ringing },
      [409, 'The peer session is not answered', 'not_answered', about('peer')],
      ringing,
    );
  });

  it('of a session in a conference, or to one, answers 409 in_conference naming which', async () => {
    const [member, up] = [await answered(), await answered()];
    await api.redis.hset(api.keys.session(member), {
      conf_state: 'joined',
      conf_room: `${node.prefix}-room-${randomUUID()}`,
    });
    await expectRefused(
      member,
      'bridge',
      { session_uuid: up },
      [
        409,
        'Session is in a conference; use conference/leave first',
        'in_conference',
        about('self'),
      ],
      up,
    );
    await expectRefused(
      up,
      'bridge',
      { session_uuid: member },
      [409, 'The peer session is in a conference', 'in_conference', about('peer')],
      member,
    );
  });

  it.each(['bridging', 'bridged', 'unbridging', 'transferring'] as const)(
    'of a session %s, or to one, answers 409 already_bridged naming which',
    async (state) => {
      const [busy, third, up] = [await answered(), await answered(), await answered()];
      await setBridge(busy, state, third);
      await expectRefused(
        busy,
        'bridge',
        { session_uuid: up },
        [409, 'Session is already bridged; use unbridge first', 'already_bridged', about('self')],
        up,
      );
      await expectRefused(
        up,
        'bridge',
        { session_uuid: busy },
        [409, 'The peer session is already bridged', 'already_bridged', about('peer')],
        busy,
      );
    },
  );

  it('two bridges racing for one session: one is accepted, the other answers 409', async () => {
    const [a, b, c] = [await answered(), await answered(), await answered()];
    const [first, second] = await Promise.all([
      post(a, 'bridge', { session_uuid: c }),
      post(b, 'bridge', { session_uuid: c }),
    ]);
    expect([first.statusCode, second.statusCode].sort()).toEqual([202, 409]);
    const winner = first.statusCode === 202 ? a : b;
    expect((await record(c)).bridge?.bridge_peer).toBe(winner);
    expect((await record(winner === a ? b : a)).bridge).toBeUndefined();
  });

  it('a repeated command_uid answers the original 202 and is enqueued once, though the session is bridging by then', async () => {
    const [a, b] = [await answered(), await answered()];
    const body = { session_uuid: b, command_uid: 'bridge-once' };
    const first = await post(a, 'bridge', body);
    const again = await post(a, 'bridge', body);
    expect([again.statusCode, again.json()]).toEqual([202, first.json()]);
    expect(await sessionCommands(a)).toHaveLength(1);
    const other = await post(a, 'bridge', {
      session_uuid: await answered(),
      command_uid: 'bridge-once',
    });
    expect(other.statusCode).toBe(422);
  });

  it('bridge, unbridge and transfer share the connect cooldown: 429 within 1000 ms', async () => {
    const [a, b] = [await answered(), await answered()];
    expect((await post(a, 'bridge', { session_uuid: b })).statusCode).toBe(202);
    await setBridge(a, 'bridged', b);
    await setBridge(b, 'bridged', a);
    const res = await post(a, 'unbridge');
    expect([res.statusCode, res.json()]).toEqual([
      429,
      refused('Command rate limited', 'command_rate_limited'),
    ]);
    // The peer's own cooldown is its own.
    expect((await post(b, 'unbridge')).statusCode).toBe(202);
  });

  it('a transfer within 1000 ms of the last, its leg refused meanwhile, answers 429', async () => {
    const caller = await answered();
    const first = await post(caller, 'transfer', { to: TO, from: FROM });
    expect(first.statusCode).toBe(202);
    // As the media node clears both sides of a transfer whose leg was refused (bridgeRefused).
    const leg = first.json<{ peer_session_uuid: string }>().peer_session_uuid;
    for (const s of [caller, leg])
      await api.redis.hdel(api.keys.session(s), 'bridge_state', 'bridge_peer', 'bridge_uid');
    const again = await post(caller, 'transfer', { to: TO, from: FROM });
    expect([again.statusCode, again.json()]).toEqual([
      429,
      refused('Command rate limited', 'command_rate_limited'),
    ]);
    await coolDown(caller);
    expect((await post(caller, 'transfer', { to: TO, from: FROM })).statusCode).toBe(202);
  });
});

describe('unbridge', () => {
  async function bridgedPair(): Promise<[string, string]> {
    const [a, b] = [await answered(), await answered(otherNode)];
    await setBridge(a, 'bridged', b);
    await setBridge(b, 'bridged', a);
    return [a, b];
  }

  it("answers 202, marks both sessions unbridging, and enqueues it on the commanded session's node", async () => {
    const [a, b] = await bridgedPair();
    const res = await post(b, 'unbridge');
    expect([res.statusCode, res.json()]).toEqual([202, deferred]);
    expect((await record(a)).bridge).toEqual({
      bridge_state: 'unbridging',
      bridge_peer: b,
      bridge_uid: 'uid-1',
    });
    expect((await record(b)).bridge).toEqual({
      bridge_state: 'unbridging',
      bridge_peer: a,
      bridge_uid: 'uid-1',
    });
    expect(await sessionCommands(b, otherNode)).toEqual([
      expect.objectContaining({ command: 'unbridge', session_id: b, args: {} }),
    ]);
    expect(await sessionCommands(a)).toEqual([]);
  });

  it('of a session whose peer has left the bridge already marks only itself', async () => {
    const [a, b] = await bridgedPair();
    await api.redis.hdel(api.keys.session(b), 'bridge_state', 'bridge_peer', 'bridge_uid');
    expect((await post(a, 'unbridge')).statusCode).toBe(202);
    expect((await record(a)).bridge?.bridge_state).toBe('unbridging');
    expect((await record(b)).bridge).toBeUndefined();
  });

  it('of a session in no bridge answers 409 not_bridged', async () => {
    const a = await answered();
    await expectRefused(a, 'unbridge', undefined, [409, 'Session is not bridged', 'not_bridged']);
  });

  it.each(['bridging', 'unbridging', 'transferring'] as const)(
    'of a session %s answers 409 bridge_pending',
    async (state) => {
      const [a, b] = [await answered(), await answered()];
      await setBridge(a, state, b);
      await setBridge(b, state, a);
      await expectRefused(
        a,
        'unbridge',
        undefined,
        [
          409,
          'Session is being bridged or unbridged, or its transfer is ringing; wait for its event',
          'bridge_pending',
        ],
        b,
      );
    },
  );

  it('of an unknown session answers 404', async () => {
    const res = await post(`${node.prefix}-${randomUUID()}`, 'unbridge');
    expect([res.statusCode, res.json()]).toEqual([
      404,
      refused('Session not found', 'session_not_found'),
    ]);
  });

  it('answers 400 for an unknown field', async () => {
    const [a, b] = await bridgedPair();
    await expectRefused(
      a,
      'unbridge',
      { peer: b },
      [400, "body must not have property 'peer'", 'validation_failed'],
      b,
    );
  });

  it('a repeated command_uid answers the original 202, though the session is unbridging by then', async () => {
    const [a] = await bridgedPair();
    const first = await post(a, 'unbridge', { command_uid: 'unbridge-once' });
    const again = await post(a, 'unbridge', { command_uid: 'unbridge-once' });
    expect([again.statusCode, again.json()]).toEqual([202, first.json()]);
    expect(await sessionCommands(a)).toHaveLength(1);
  });
});

describe('transfer', () => {
  it('answers 202 with the new leg and the ring time in timeout_ms, and enqueues its arguments', async () => {
    const caller = await answered();
    const res = await post(caller, 'transfer', { to: TO, from: FROM, command_uid: 'xfer-1' });
    expect(res.statusCode).toBe(202);
    const body = res.json<{ peer_session_uuid: string }>();
    expect(body).toEqual({
      operation_id: OPERATION_ID,
      status: 'in_progress',
      timeout_ms: 32_000,
      peer_session_uuid: expect.stringMatching(
        new RegExp(
          `^${node.prefix}-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$`,
        ),
      ),
    });
    expect(await sessionCommands(caller)).toEqual([
      {
        kind: 'session',
        command: 'transfer',
        session_id: caller,
        app_id: tenant.appId,
        operation_id: res.json().operation_id,
        command_uid: 'xfer-1',
        args: {
          to: TO,
          from: FROM,
          timeout_sec: 30,
          max_duration_sec: 3600,
          peer_session_uuid: body.peer_session_uuid,
        },
        issued_at: expect.any(Number),
      },
    ]);
  });

  it('creates the new leg as dial does, with parent_session_uuid, and marks both transferring', async () => {
    const caller = await answered();
    const before = Date.now();
    const res = await post(caller, 'transfer', {
      to: TO,
      from: FROM,
      timeout_sec: 60,
      max_duration_sec: 120,
      metadata: { ticket: 7 },
      command_uid: 'xfer-2',
    });
    expect(res.json()).toMatchObject({ timeout_ms: 62_000 });
    const leg = res.json<{ peer_session_uuid: string }>().peer_session_uuid;
    const created = await record(leg);
    expect(created).toEqual({
      app_id: tenant.appId,
      node: node.prefix,
      direction: 'outbound',
      caller_id: FROM,
      did: TO,
      created_at: expect.any(Number),
      conf_room: '',
      conf_state: 'none',
      conf_member_id: '',
      conf_muted: false,
      dial_status: 'dialing',
      dial_started_at: expect.any(String),
      metadata: { ticket: 7 },
      recording_ids: [],
      parent_session_uuid: caller,
      bridge: { bridge_state: 'transferring', bridge_peer: caller, bridge_uid: 'xfer-2' },
    });
    expect(created.created_at).toBeGreaterThanOrEqual(before);
    expect((await record(caller)).bridge).toEqual({
      bridge_state: 'transferring',
      bridge_peer: leg,
      bridge_uid: 'xfer-2',
    });
    // In the app's live outbound index (GET /sessions), and its dial status readable.
    const index = api.keys.appSessions(tenant.appId, 'live', 'outbound');
    expect(Number(await api.redis.zscore(index, leg))).toBe(created.created_at);
    const status = await api.app.inject({
      method: 'GET',
      url: `/api/v1/dial/${leg}`,
      headers: tenant.headers,
    });
    expect(status.json()).toMatchObject({ session_uuid: leg, status: 'dialing' });
    const [message] = await sessionCommands(caller);
    expect(message?.args).toEqual({
      to: TO,
      from: FROM,
      timeout_sec: 60,
      max_duration_sec: 120,
      metadata: { ticket: 7 },
      peer_session_uuid: leg,
    });
  });

  it('a from off the allow-list answers 403 cid_not_allowed and creates nothing', async () => {
    const caller = await answered();
    const index = api.keys.appSessions(tenant.appId, 'live', 'outbound');
    const legs = await api.redis.zcard(index);
    await expectRefused(caller, 'transfer', { to: TO, from: '0739999999' }, [
      403,
      'from is not on the caller-ID allow-list',
      'cid_not_allowed',
    ]);
    expect(await api.redis.zcard(index)).toBe(legs);
  });

  it('a node without outbound capacity, or draining, answers 503 no_fs_capacity; 403 comes first', async () => {
    for (const beat of [{ outbound_capacity: 0 }, { draining: true }]) {
      const full = await liveNode(api, beat);
      const caller = await answered(full);
      await expectRefused(caller, 'transfer', { to: TO, from: FROM }, [
        503,
        'No outbound capacity; retry with backoff',
        'no_fs_capacity',
      ]);
      await expectRefused(caller, 'transfer', { to: TO, from: '0739999999' }, [
        403,
        'from is not on the caller-ID allow-list',
        'cid_not_allowed',
      ]);
      expect(await commandsFor(api, full)).toEqual([]);
    }
  });

  describe('answers 400 for a bad body, with dial’s rules', () => {
    const cases: [string, unknown, string, string][] = [
      ['no to', { from: FROM }, 'to is required', 'validation_failed'],
      ['no from', { to: TO }, 'from is required', 'validation_failed'],
      [
        'an international to',
        { to: '+972521234567', from: FROM },
        'to has an invalid format',
        'validation_failed',
      ],
      [
        'a short from',
        { to: TO, from: '073123456' },
        'from has an invalid format',
        'validation_failed',
      ],
      [
        'timeout_sec 0',
        { to: TO, from: FROM, timeout_sec: 0 },
        'timeout_sec must be >= 1',
        'validation_failed',
      ],
      [
        'timeout_sec 301',
        { to: TO, from: FROM, timeout_sec: 301 },
        'timeout_sec must be <= 300',
        'validation_failed',
      ],
      [
        'max_duration_sec 14401',
        { to: TO, from: FROM, max_duration_sec: 14_401 },
        'max_duration_sec must be <= 14400',
        'validation_failed',
      ],
      [
        'metadata not an object',
        { to: TO, from: FROM, metadata: [] },
        'metadata must be object',
        'validation_failed',
      ],
      [
        'an unknown field',
        { to: TO, from: FROM, url: URL },
        "body must not have property 'url'",
        'validation_failed',
      ],
    ];
    it.each(cases)('%s', async (_case, body, error, code) => {
      const caller = await answered();
      await expectRefused(caller, 'transfer', body, [400, error, code]);
    });
  });

  it('of a session not answered, in a conference or in a bridge answers 409', async () => {
    const ringing = await seedSession(api, tenant, node.prefix);
    await expectRefused(ringing, 'transfer', { to: TO, from: FROM }, [
      409,
      'Session is not answered',
      'not_answered',
      about('self'),
    ]);
    const member = await answered();
    await api.redis.hset(api.keys.session(member), { conf_state: 'joining', conf_room: 'r' });
    await expectRefused(member, 'transfer', { to: TO, from: FROM }, [
      409,
      'Session is in a conference; use conference/leave first',
      'in_conference',
      about('self'),
    ]);
    const bridged = await answered();
    await setBridge(bridged, 'bridged', await answered());
    await expectRefused(bridged, 'transfer', { to: TO, from: FROM }, [
      409,
      'Session is already bridged; use unbridge first',
      'already_bridged',
      about('self'),
    ]);
  });

  it('a repeated command_uid answers the original 202 and creates one leg; another body answers 422', async () => {
    const caller = await answered();
    const body = { to: TO, from: FROM, command_uid: 'xfer-once' };
    const index = api.keys.appSessions(tenant.appId, 'live', 'outbound');
    const legs = await api.redis.zcard(index);
    const first = await post(caller, 'transfer', body);
    await coolDown(caller);
    const again = await post(caller, 'transfer', { ...body, timeout_sec: 30 });
    expect([again.statusCode, again.json()]).toEqual([202, first.json()]);
    expect(await api.redis.zcard(index)).toBe(legs + 1);
    expect(await sessionCommands(caller)).toHaveLength(1);
    const other = await post(caller, 'transfer', { ...body, to: '0521234568' });
    expect([other.statusCode, other.json().code]).toEqual([422, 'command_uid_reused']);
  });

  it('the new leg cannot be bridged elsewhere while it rings, nor its caller', async () => {
    const caller = await answered();
    const leg = (await post(caller, 'transfer', { to: TO, from: FROM })).json<{
      peer_session_uuid: string;
    }>().peer_session_uuid;
    // As if the leg had answered: still transferring until the media node bridges it.
    await api.redis.hset(api.keys.session(leg), 'answered_at', Date.now());
    const third = await answered();
    await expectRefused(
      third,
      'bridge',
      { session_uuid: leg },
      [409, 'The peer session is already bridged', 'already_bridged', about('peer')],
      leg,
    );
    await expectRefused(
      third,
      'bridge',
      { session_uuid: caller },
      [409, 'The peer session is already bridged', 'already_bridged', about('peer')],
      caller,
    );
  });
});

describe('a transfer whose media node died before it ran', () => {
  it('answers the transfer failed with its leg, then ends the leg the node never placed', async () => {
    const dead = await liveNode(api);
    const caller = await answered(dead);
    const res = await post(caller, 'transfer', { to: TO, from: FROM, command_uid: 'lost-xfer' });
    const leg = res.json<{ peer_session_uuid: string }>().peer_session_uuid;
    await api.redis.del(api.keys.nodeHeartbeat(dead));
    const events = (await publishedEvents(api)).length;

    const sweeper = {
      redis: api.redis,
      keys: api.keys,
      scripts: new LuaScripts(api.redis),
      log: createLogger({ name: 'test', level: 'silent' }),
      sessionGraceMs: 60_000,
    };
    expect(await failDeadNodeCommands(sweeper, dead)).toBe(1);

    expect((await publishedEvents(api)).slice(events)).toEqual([
      expect.objectContaining({
        event: 'command.result',
        session_uuid: caller,
        command: 'call.transfer',
        command_uid: 'lost-xfer',
        success: false,
        error: NODE_LOST,
        outcome: 'failed',
        peer_session_uuid: leg,
      }),
      expect.objectContaining({
        event: 'call.hangup',
        session_uuid: leg,
        hangup_cause: 'failed',
        duration_seconds: 0,
        parent_session_uuid: caller,
      }),
    ]);
    expect((await record(leg)).ended_at).toEqual(expect.any(Number));
    // A second sweep finds both done.
    expect(await failDeadNodeCommands(sweeper, dead)).toBe(0);
    expect((await publishedEvents(api)).length).toBe(events + 2);
  });
});

describe('commands on a bridged session', () => {
  const EXCLUDED: [string, unknown][] = [
    ['playback/start', { urls: [URL] }],
    ['playback/silence', undefined],
    ['play_and_get_digits', { prompt_files: [URL] }],
    ['conference/join', { room_id: `abcde-room-${randomUUID()}` }],
  ];

  it.each(EXCLUDED)(
    '%s answers 409 bridged while bridging, bridged, unbridging or transferring',
    async (command, body) => {
      for (const state of ['bridging', 'bridged', 'unbridging', 'transferring'] as const) {
        const [a, b] = [await answered(), await answered()];
        await setBridge(a, state, b);
        await expectRefused(a, command, body, [
          409,
          'Session is bridged; use unbridge first',
          'bridged',
        ]);
      }
    },
  );

  it.each([
    ['record/start', undefined],
    ['stream/start', { url: 'wss://93.184.216.34/agent' }],
    ['playback/stop', undefined],
    ['hangup', undefined],
  ])('%s is accepted', async (command, body) => {
    const [a, b] = [await answered(), await answered()];
    await setBridge(a, 'bridged', b);
    expect((await post(a, command, body)).statusCode).toBe(202);
  });

  it('playback/start is accepted again once the bridge has ended', async () => {
    const [a, b] = [await answered(), await answered()];
    await setBridge(a, 'bridged', b);
    expect((await post(a, 'playback/start', { urls: [URL] })).statusCode).toBe(409);
    await api.redis.hdel(api.keys.session(a), 'bridge_state', 'bridge_peer', 'bridge_uid');
    expect((await post(a, 'playback/start', { urls: [URL] })).statusCode).toBe(202);
  });
});
