import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createTenant,
  json,
  liveNode,
  startApi,
  type TestApi,
  type TestTenant,
} from './helpers.js';

// Own api (own key prefix): the live media nodes are this file's alone.
let api: TestApi;
let tenant: TestTenant;
let rooms = 0;

beforeAll(async () => {
  api = await startApi();
  tenant = await createTenant(api);
});
afterAll(() => api.close());

async function hostsOf(count: number): Promise<string[]> {
  const hosts: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await api.app.inject({
      method: 'POST',
      url: '/api/v1/conferences',
      headers: { ...tenant.headers, ...json },
      payload: JSON.stringify({ name: `placement-${++rooms}` }),
    });
    expect(res.statusCode).toBe(201);
    hosts.push(res.json<{ room_id: string }>().room_id.slice(0, 5));
  }
  return hosts;
}

const tally = (hosts: string[]) =>
  hosts.reduce((m, h) => m.set(h, (m.get(h) ?? 0) + 1), new Map<string, number>());

describe('room placement', () => {
  it('with equal load, new rooms are spread over the nodes, not all put on one', async () => {
    const nodes = [await liveNode(api), await liveNode(api), await liveNode(api)];
    const counts = tally(await hostsOf(30));
    // Random ties: every node of three gets a room of 30 but with a chance of 3·(2/3)^30 ≈ 1e-5.
    expect([...counts.keys()].sort()).toEqual([...nodes].sort());
    for (const node of nodes) await api.redis.del(api.keys.nodeHeartbeat(node));
  });

  it('a node without its FreeSWITCH gets no room, however idle', async () => {
    const idle = await liveNode(api, { freeswitch: 'unreachable' });
    const working = await liveNode(api, { active_sessions: 90, freeswitch: 'ok' });
    expect(tally(await hostsOf(5))).toEqual(new Map([[working, 5]]));
    for (const node of [idle, working]) await api.redis.del(api.keys.nodeHeartbeat(node));
  });

  it('the least loaded node still wins when loads differ', async () => {
    const busy = await liveNode(api, { active_sessions: 50 });
    const quiet = await liveNode(api, { active_sessions: 10 });
    expect(tally(await hostsOf(10))).toEqual(new Map([[quiet, 10]]));
    for (const node of [busy, quiet]) await api.redis.del(api.keys.nodeHeartbeat(node));
  });
});
