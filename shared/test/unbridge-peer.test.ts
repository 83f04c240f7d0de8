import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  lua,
  LuaScripts,
  NodeRegistry,
  RedisKeys,
  ScriptCode,
  SessionStore,
  sessionId,
} from '../src/index.js';

// sessionCommands-n.lua's unbridge against the peer the api read before the run: what the api
// cannot make happen between its read and the run, a bridge that came or went meanwhile.

const keys = new RedisKeys(`unbridge-${randomUUID().slice(0, 8)}`);
let redis: Redis;
let scripts: LuaScripts;
let prefix: string;

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  scripts = new LuaScripts(redis);
  const nodes = new NodeRegistry(redis, keys);
  prefix = await nodes.claimPrefix('unbridge-node');
  const beat = { name: 'unbridge-node', capacity: 10, active_sessions: 2 };
  await nodes.heartbeat(prefix, { ...beat, outbound_capacity: 10, draining: false }, 60_000);
});
afterAll(() => redis.disconnect());

/** A live session of app_a, in a bridge with `peer` when one is given. */
async function session(peer?: string): Promise<string> {
  const id = sessionId(prefix, randomUUID());
  await new SessionStore(redis, keys).create(id, {
    app_id: 'app_a',
    node: prefix,
    direction: 'inbound',
    caller_id: '0501234567',
    did: '0731234567',
    answered_at: Date.now(),
  });
  if (peer) {
    await redis.hset(keys.session(id), {
      bridge_state: 'bridged',
      bridge_peer: peer,
      bridge_uid: 'u',
    });
  }
  return id;
}

/** One unbridge of `id`, the api having read `peer` as its bridge peer ('' for none). */
function unbridge(id: string, peer: string) {
  const unused = keys.unused();
  return scripts.run(
    lua.sessionCommands(
      {
        ipWindow: unused,
        appWindow: unused,
        session: keys.session(id),
        heartbeat: keys.nodeHeartbeat(prefix),
        claim: unused,
        cooldown: unused,
        commandStream: keys.commandStream(prefix),
        room: unused,
        roomMembers: unused,
        peer: peer ? keys.session(peer) : unused,
        peerHeartbeat: unused,
        callerIds: unused,
        liveSessions: unused,
      },
      {
        appId: 'app_a',
        ipLimit: -1,
        ipWindowMs: 0,
        appLimit: -1,
        appWindowMs: 0,
        command: 'unbridge',
        cooldownMs: 0,
        claimTtlMs: 0,
        deferredBody: '',
        message: JSON.stringify({ command: 'unbridge', session_id: id }),
        roomId: '',
        sessionId: id,
        fingerprint: '',
        refusedWhileBridged: 0,
        peerId: peer,
        peerFields: '',
      },
    ),
  );
}

const state = (id: string) => redis.hget(keys.session(id), 'bridge_state');

describe('unbridge against the peer the api read', () => {
  it('a bridge made since the read (none read, one found) answers BRIDGE_PEER_CHANGED, changing nothing', async () => {
    const b = await session();
    const a = await session(b);
    expect(await unbridge(a, '')).toEqual([ScriptCode.BRIDGE_PEER_CHANGED, null]);
    expect(await state(a)).toBe('bridged');
    expect(await redis.xlen(keys.commandStream(prefix))).toBe(0);
  });

  it('another peer than the one read answers BRIDGE_PEER_CHANGED; the one read is accepted', async () => {
    const [b, c] = [await session(), await session()];
    const a = await session(b);
    await redis.hset(keys.session(b), { bridge_state: 'bridged', bridge_peer: a, bridge_uid: 'u' });
    expect(await unbridge(a, c)).toEqual([ScriptCode.BRIDGE_PEER_CHANGED, null]);
    expect([await state(a), await state(b)]).toEqual(['bridged', 'bridged']);
    expect(await unbridge(a, b)).toEqual([0, null]);
    expect([await state(a), await state(b)]).toEqual(['unbridging', 'unbridging']);
  });
});
