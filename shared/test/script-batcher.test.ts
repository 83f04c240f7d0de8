import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  lua,
  LuaScripts,
  NodeRegistry,
  RedisKeys,
  ScriptBatcher,
  ScriptCode,
  SessionStore,
  sessionId,
} from '../src/index.js';

/**
 * The batcher on the one batch script there is, sessionCommands-n.lua, against the test Redis:
 * which calls share a script run, and that each call gets its own reply.
 */
const keys = new RedisKeys(`batcher-${randomUUID().slice(0, 8)}`);
let redis: Redis;
let scripts: LuaScripts;
let prefix: string;
let live: string;

beforeAll(async () => {
  redis = new Redis(inject('redisUrl'));
  scripts = new LuaScripts(redis);
  const nodes = new NodeRegistry(redis, keys);
  prefix = await nodes.claimPrefix('batcher-node');
  await nodes.heartbeat(
    prefix,
    {
      name: 'batcher-node',
      capacity: 10,
      active_sessions: 1,
      outbound_capacity: 0,
      draining: false,
    },
    60_000,
  );
  live = sessionId(prefix, randomUUID());
  await new SessionStore(redis, keys).create(live, {
    app_id: 'app_a',
    node: prefix,
    direction: 'inbound',
    caller_id: '0501234567',
    did: '0731234567',
  });
});

afterAll(() => redis.disconnect());

const batcher = (maxCalls: number): ScriptBatcher<'sessionCommands'> =>
  new ScriptBatcher(scripts, { script: 'sessionCommands', maxCalls });

/** One `answer` command of `appId` on `session`, tagged by `tag`. */
function answer(appId: string, session: string, tag: string) {
  return lua.sessionCommands(
    {
      ipWindow: keys.rateWindow('ip', `${appId}:127.0.0.1`, 1),
      appWindow: keys.rateWindow('app', appId, 1),
      session: keys.session(session),
      heartbeat: keys.nodeHeartbeat(prefix),
      claim: keys.commandClaim(appId, session, tag),
      cooldown: keys.cooldown('sess', session, 'none'),
      commandStream: keys.commandStream(prefix),
      room: keys.room(''),
      roomMembers: keys.roomMembers(''),
      peer: keys.unused(),
      peerHeartbeat: keys.unused(),
      callerIds: keys.unused(),
      liveSessions: keys.unused(),
    },
    {
      appId,
      ipLimit: 1000,
      ipWindowMs: 1000,
      appLimit: 1000,
      appWindowMs: 60_000,
      command: 'answer',
      cooldownMs: 0,
      claimTtlMs: 0,
      deferredBody: '',
      message: JSON.stringify({ tag }),
      roomId: '',
      sessionId: session,
      fingerprint: '',
      refusedWhileBridged: 0,
      peerId: '',
      peerFields: '',
    },
  );
}

async function scriptRuns(): Promise<number> {
  const stats = await redis.info('commandstats');
  const calls = (command: string): number =>
    Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  return calls('evalsha') + calls('eval');
}

const call = (b: ScriptBatcher<'sessionCommands'>, c: ReturnType<typeof answer>) => b.call(c);

describe('ScriptBatcher', () => {
  it('runs the calls of one event-loop turn in one script run, each with its own reply', async () => {
    const b = batcher(64);
    await call(b, answer('app_a', live, 'warm')); // loads the script (EVALSHA falls back to EVAL)
    const runsBefore = await scriptRuns();
    const replies = await Promise.all([
      call(b, answer('app_a', live, 'one')),
      call(b, answer('app_a', sessionId(prefix, randomUUID()), 'unknown session')),
      call(b, answer('app_b', live, 'other app')),
      call(b, answer('app_a', live, 'two')),
    ]);
    expect(await scriptRuns()).toBe(runsBefore + 1);
    expect(replies).toEqual([
      [0, null],
      [ScriptCode.SESSION_NOT_FOUND, null],
      [ScriptCode.SESSION_OF_ANOTHER_APP, null],
      [0, null],
    ]);
  });

  it('appends the accepted commands in the order they were called', async () => {
    const b = batcher(64);
    const stream = keys.commandStream(prefix);
    await redis.del(stream);
    const tags = Array.from({ length: 10 }, (_, i) => `ordered-${i}`);
    await Promise.all(tags.map((tag) => call(b, answer('app_a', live, tag))));
    const entries = await redis.xrange(stream, '-', '+');
    expect(entries.map(([, fields]) => (JSON.parse(fields[1]!) as { tag: string }).tag)).toEqual(
      tags,
    );
  });

  it('fails only the command that raised an error, not the rest of its batch', async () => {
    const b = batcher(64);
    const broken = sessionId(prefix, randomUUID());
    await redis.set(keys.session(broken), 'not a hash');
    const replies = await Promise.all([
      call(b, answer('app_a', live, 'before')),
      call(b, answer('app_a', broken, 'wrong type')),
      call(b, answer('app_a', live, 'after')),
    ]);
    expect(replies[0]).toEqual([0, null]);
    expect(replies[1]?.[0]).toBe(ScriptCode.COMMAND_FAILED);
    expect(String(replies[1]?.[1])).toContain('WRONGTYPE');
    expect(replies[2]).toEqual([0, null]);
  });

  it('sends a full batch at once and the rest in another run', async () => {
    const b = batcher(2);
    await call(b, answer('app_a', live, 'warm'));
    const runsBefore = await scriptRuns();
    const replies = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((tag) => call(b, answer('app_a', live, tag))),
    );
    expect(replies.every(([code]) => code === 0)).toBe(true);
    expect(await scriptRuns()).toBe(runsBefore + 3);
  });

  it('fails every call of a batch whose script call fails', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined); // the refused connection is the point of the test
    const b = new ScriptBatcher(new LuaScripts(down), { script: 'sessionCommands', maxCalls: 64 });
    const results = await Promise.allSettled([
      call(b, answer('app_a', live, 'x')),
      call(b, answer('app_a', live, 'y')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    down.disconnect();
  });

  it('takes only runs of its own script (checked when the tests compile)', () => {
    const b = batcher(64);
    const other = lua.updateSession({ session: keys.session(live) }, { fields: [] });
    // @ts-expect-error a run of another script
    const wrong = () => b.call(other);
    expect(typeof wrong).toBe('function');
  });
});
