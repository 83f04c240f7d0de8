import { describe, expect, it, onTestFinished } from 'vitest';
import { lua, ScriptCode } from '@voicegw/shared';
import {
  commandsFor,
  createRoom,
  createTenant,
  liveNode,
  startApi,
  tenantRequest,
  type TestApi,
  type TestTenant,
} from './helpers.js';

const FROM = '0731234567';
const TO = '0521234567';
const NO_CAPACITY = {
  success: false,
  error: 'No outbound capacity; retry with backoff',
  code: 'no_fs_capacity',
};

/**
 * An api of the test's own (its own key prefix, so a set of live media nodes of its own), closed
 * when the test finishes, with a tenant allowed to dial from FROM.
 */
async function setup(): Promise<{ api: TestApi; tenant: TestTenant }> {
  const api = await startApi();
  onTestFinished(() => api.close());
  const tenant = await createTenant(api);
  await api.redis.sadd(api.keys.appCids(tenant.appId), FROM);
  return { api, tenant };
}

const dial = (t: TestApi, tenant: TestTenant, from = FROM) =>
  tenantRequest(t, tenant, 'POST', '/api/v1/dial', { to: TO, from });

/** Every session hash under this api's prefix. */
const sessionKeys = (t: TestApi) => t.redis.keys(t.keys.session('*'));

describe('dial placement', () => {
  it('answers 503 no_fs_capacity when no media node is live', async () => {
    const { api, tenant } = await setup();
    const res = await dial(api, tenant);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(NO_CAPACITY);
    expect(await sessionKeys(api)).toEqual([]);
  });

  it.each([
    ['has no outbound capacity', { outbound_capacity: 0 }],
    ['is draining', { draining: true }],
  ])('answers 503 no_fs_capacity when the only node %s', async (_state, beat) => {
    const { api, tenant } = await setup();
    const node = await liveNode(api, beat);
    const res = await dial(api, tenant);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(NO_CAPACITY);
    expect(await commandsFor(api, node)).toEqual([]);
  });

  it('answers 503 when the only node registered once but its heartbeat expired', async () => {
    const { api, tenant } = await setup();
    const node = await liveNode(api);
    await api.redis.del(api.keys.nodeHeartbeat(node));
    const res = await dial(api, tenant);
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual(NO_CAPACITY);
  });

  it('answers 403 rather than 503 when from is not allowed and no node is live', async () => {
    const { api, tenant } = await setup();
    const res = await dial(api, tenant, '0771111111');
    expect(res.statusCode).toBe(403);
    expect(res.json().code).toBe('cid_not_allowed');
  });

  it('places the call on the least-loaded of two live nodes', async () => {
    const { api, tenant } = await setup();
    const busy = await liveNode(api, { capacity: 100, active_sessions: 60 });
    const idle = await liveNode(api, { capacity: 100, active_sessions: 10 });
    const res = await dial(api, tenant);
    expect(res.statusCode).toBe(202);
    const id = res.json<{ session_uuid: string }>().session_uuid;
    expect(id.startsWith(`${idle}-`)).toBe(true);
    expect(await api.redis.hget(api.keys.session(id), 'node')).toBe(idle);
    expect(await commandsFor(api, idle)).toMatchObject([{ kind: 'dial', session_id: id }]);
    expect(await commandsFor(api, busy)).toEqual([]);
  });

  it('skips a less loaded node that is draining or has no outbound capacity', async () => {
    const { api, tenant } = await setup();
    await liveNode(api, { active_sessions: 0, draining: true });
    await liveNode(api, { active_sessions: 1, outbound_capacity: 0 });
    const open = await liveNode(api, { active_sessions: 90 });
    const res = await dial(api, tenant);
    expect(res.statusCode).toBe(202);
    expect(res.json<{ session_uuid: string }>().session_uuid).toMatch(new RegExp(`^${open}-`));
  });

  it('answers 500 and leaves no session behind when the originate cannot be enqueued', async () => {
    const { api, tenant } = await setup();
    const node = await liveNode(api);
    // A command stream key of the wrong type makes the XADD inside the script fail.
    await api.redis.set(api.keys.commandStream(node), 'not a stream');
    const res = await dial(api, tenant);
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({
      success: false,
      error: 'Internal error placing the dial',
      code: 'dial_failed',
    });
    expect(await sessionKeys(api)).toEqual([]);
  });
});

/** The host prefix of each of `count` new rooms. */
async function roomHosts(t: TestApi, tenant: TestTenant, count: number): Promise<string[]> {
  const hosts: string[] = [];
  for (let i = 0; i < count; i++)
    hosts.push((await createRoom(t, tenant, `placement-${i}`)).slice(0, 5));
  return hosts;
}

const tally = (hosts: string[]) =>
  hosts.reduce((m, h) => m.set(h, (m.get(h) ?? 0) + 1), new Map<string, number>());

describe('room placement', () => {
  it('with equal load, new rooms are spread over the nodes, not all put on one', async () => {
    const { api, tenant } = await setup();
    const nodes = [await liveNode(api), await liveNode(api), await liveNode(api)];
    const counts = tally(await roomHosts(api, tenant, 30));
    // Random ties: every node of three gets a room of 30 but with a chance of 3·(2/3)^30 ≈ 1e-5.
    expect([...counts.keys()].sort()).toEqual([...nodes].sort());
  });

  it('a node without its FreeSWITCH gets no room, however idle', async () => {
    const { api, tenant } = await setup();
    await liveNode(api, { freeswitch: 'unreachable' });
    const working = await liveNode(api, { active_sessions: 90, freeswitch: 'ok' });
    expect(tally(await roomHosts(api, tenant, 5))).toEqual(new Map([[working, 5]]));
  });

  it('the least loaded node still wins when loads differ', async () => {
    const { api, tenant } = await setup();
    await liveNode(api, { active_sessions: 50 });
    const quiet = await liveNode(api, { active_sessions: 10 });
    expect(tally(await roomHosts(api, tenant, 10))).toEqual(new Map([[quiet, 10]]));
  });
});

describe('placeDial script', () => {
  // The api picks a node, then the script re-checks it: the node may drain or die in between.
  const run = async (t: TestApi, tenant: TestTenant, node: string) => {
    const id = `${node}-00000000-0000-4000-8000-000000000000`;
    const index = t.keys.appSessions(tenant.appId, 'live', 'outbound');
    const code = await t.app.scripts.run(
      lua.placeDial(
        {
          callerIds: t.keys.appCids(tenant.appId),
          heartbeat: t.keys.nodeHeartbeat(node),
          session: t.keys.session(id),
          commandStream: t.keys.commandStream(node),
          liveSessions: index,
        },
        {
          from: FROM,
          command: '{}',
          createdAt: Date.now(),
          sessionId: id,
          fields: ['app_id', tenant.appId],
        },
      ),
    );
    // A refused dial leaves no entry in the app's session index either.
    expect(await t.redis.zscore(index, id)).toBeNull();
    return code;
  };

  it('refuses a node that started draining after it was picked', async () => {
    const { api, tenant } = await setup();
    const node = await liveNode(api);
    await api.redis.hset(api.keys.nodeHeartbeat(node), 'draining', '1');
    expect(await run(api, tenant, node)).toBe(ScriptCode.NODE_UNAVAILABLE);
    expect(await sessionKeys(api)).toEqual([]);
    expect(await api.redis.exists(api.keys.commandStream(node))).toBe(0);
  });

  it('refuses a node whose outbound capacity ran out after it was picked', async () => {
    const { api, tenant } = await setup();
    const node = await liveNode(api);
    await api.redis.hset(api.keys.nodeHeartbeat(node), 'outbound_capacity', '0');
    expect(await run(api, tenant, node)).toBe(ScriptCode.NODE_UNAVAILABLE);
  });

  it('refuses a node that died after it was picked', async () => {
    const { api, tenant } = await setup();
    const node = await liveNode(api);
    await api.redis.del(api.keys.nodeHeartbeat(node));
    expect(await run(api, tenant, node)).toBe(ScriptCode.NODE_UNAVAILABLE);
  });

  it('never overwrites an existing session', async () => {
    const { api, tenant } = await setup();
    const node = await liveNode(api);
    const key = api.keys.session(`${node}-00000000-0000-4000-8000-000000000000`);
    await api.redis.hset(key, 'app_id', 'someone-else');
    expect(await run(api, tenant, node)).toBe(ScriptCode.SESSION_EXISTS);
    expect(await api.redis.hget(key, 'app_id')).toBe('someone-else');
  });
});
