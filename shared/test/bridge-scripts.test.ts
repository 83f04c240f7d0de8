import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  clearRefusedBridge,
  EVENT_FIELDS,
  eventArgs,
  lua,
  LuaScripts,
  recordUnbridge,
  RedisKeys,
} from '../src/index.js';

// The media node's bridge scripts on a real Redis: a party's one call.bridged
// (bridgeConfirmed), its one call.unbridged with the reason its state gives (bridgeEnded), and
// the clearing of a bridge that never connected (bridgeRefused).

const keys = new RedisKeys(`bridge-${randomUUID().slice(0, 8)}`);
let redis: Redis;
let scripts: LuaScripts;

beforeAll(() => {
  redis = new Redis(inject('redisUrl'));
  scripts = new LuaScripts(redis);
});
afterAll(() => redis.disconnect());

const id = () => `abcde-${randomUUID()}`;

async function party(state: string, peer: string, extra: Record<string, string> = {}) {
  const session = id();
  await redis.hset(keys.session(session), {
    app_id: 'app_a',
    bridge_state: state,
    bridge_peer: peer,
    bridge_uid: 'uid-1',
    ...extra,
  });
  return session;
}

/** The events appended since `from` (a stream id), as their payloads. */
async function eventsSince(from: string): Promise<Array<Record<string, unknown>>> {
  const entries = await redis.xrange(keys.events(), `(${from}`, '+');
  return entries.map(([, fields]) =>
    JSON.parse(fields[fields.indexOf(EVENT_FIELDS.body) + 1] ?? '{}'),
  );
}

async function lastId(): Promise<string> {
  const [last] = await redis.xrevrange(keys.events(), '+', '-', 'COUNT', 1);
  return last?.[0] ?? '0-0';
}

const unbridge = (sessionId: string, peerId: string, selfEnded = false, peerGone = false) =>
  recordUnbridge(
    { keys, scripts },
    {
      sessionId,
      peerId,
      appId: 'app_a',
      metadata: undefined,
      durationMs: 1500,
      selfEnded,
      peerGone,
    },
  );

const fields = (session: string) =>
  redis.hmget(keys.session(session), 'bridge_state', 'bridge_peer', 'bridge_uid');

describe('bridgeEnded: one call.unbridged, its reason from the state found', () => {
  it.each([
    ['unbridging', {}, false, false, 'unbridged'],
    ['unbridging', {}, true, false, 'unbridged'],
    ['bridged', {}, true, false, 'hangup'],
    ['bridged', {}, false, true, 'peer_hangup'],
    ['bridged', { peerEnded: true }, false, false, 'peer_hangup'],
    ['bridged', {}, false, false, 'error'],
  ] as const)(
    '%s, %j, self ended %s, peer gone %s: %s, once; the fields cleared',
    async (state, { peerEnded }: { peerEnded?: boolean }, selfEnded, peerGone, reason) => {
      const peer = id();
      if (peerEnded) await redis.hset(keys.session(peer), { app_id: 'app_a', ended_at: '1' });
      const session = await party(state, peer);
      const from = await lastId();
      expect(await unbridge(session, peer, selfEnded, peerGone)).toBe(reason);
      expect(await unbridge(session, peer, selfEnded, peerGone)).toBeUndefined();
      expect(await eventsSince(from)).toEqual([
        expect.objectContaining({
          event: 'call.unbridged',
          session_uuid: session,
          peer_session_uuid: peer,
          reason,
          duration_ms: 1500,
        }),
      ]);
      expect(await fields(session)).toEqual([null, null, null]);
    },
  );

  it('a bridge never confirmed is cleared without an event; fields naming another peer are left alone', async () => {
    const peer = id();
    const pending = await party('bridging', peer);
    const other = await party('bridged', id());
    const from = await lastId();
    expect(await unbridge(pending, peer)).toBe('cleared');
    expect(await unbridge(other, peer)).toBeUndefined();
    expect(await eventsSince(from)).toEqual([]);
    expect(await fields(pending)).toEqual([null, null, null]);
    expect((await fields(other))[0]).toBe('bridged');
  });
});

describe('bridgeConfirmed', () => {
  const confirm = (session: string, peer: string) =>
    scripts.run(
      lua.bridgeConfirmed(
        { session: keys.session(session), events: keys.events() },
        {
          peer,
          event: eventArgs('app_a', {
            event: 'call.bridged',
            session_uuid: session,
            peer_session_uuid: peer,
            command_uid: 'uid-1',
          }),
        },
      ),
    );

  it('publishes call.bridged once, for a bridge or transfer not yet confirmed with that peer', async () => {
    const peer = id();
    const bridging = await party('bridging', peer);
    const transferring = await party('transferring', peer);
    const from = await lastId();
    expect(await confirm(bridging, peer)).toBe(1);
    expect(await confirm(bridging, peer)).toBe(0);
    expect(await confirm(transferring, peer)).toBe(1);
    expect(await confirm(await party('bridging', id()), peer)).toBe(0);
    expect(await confirm(await party('bridging', peer, { ended_at: '1' }), peer)).toBe(0);
    expect((await eventsSince(from)).map((e) => e.session_uuid)).toEqual([bridging, transferring]);
    expect((await fields(bridging))[0]).toBe('bridged');
  });
});

describe('bridgeRefused', () => {
  it('clears both sides while each names the other unconfirmed, and nothing else', async () => {
    const [a, b] = [id(), id()];
    await redis.hset(keys.session(a), {
      app_id: 'app_a',
      bridge_state: 'transferring',
      bridge_peer: b,
      bridge_uid: 'u',
    });
    await redis.hset(keys.session(b), {
      app_id: 'app_a',
      bridge_state: 'transferring',
      bridge_peer: a,
      bridge_uid: 'u',
    });
    const confirmed = await party('bridged', a);
    await clearRefusedBridge({ keys, scripts }, a, b);
    await clearRefusedBridge({ keys, scripts }, a, confirmed);
    expect(await fields(a)).toEqual([null, null, null]);
    expect(await fields(b)).toEqual([null, null, null]);
    expect((await fields(confirmed))[0]).toBe('bridged');
  });
});
