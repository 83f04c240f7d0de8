import { beforeAll, describe, expect, it } from 'vitest';
import { mobile } from './harness.js';
import { inboundCall, type NodeOnSim } from './calls.js';
import { useStack, useTenant } from './use-stack.js';

// GET /api/v1/sessions against media nodes: the index and the fields the nodes write (created,
// answered, ended) as an api on the same Redis reads them.

/** A second media node, with its own simulator, ending sessions with a 1 s grace. */
let second: NodeOnSim;
const did = '0734440000';
const from = '0721114444';

const stack = useStack();
const tenant = useTenant(stack, { dids: [did], cids: [from] });

beforeAll(async () => {
  second = await stack.startNode({ SESSION_GRACE_SEC: '1' });
});

interface SessionBody {
  session_uuid: string;
  direction: string;
  status: string;
  answered_at: string | null;
  ended_at: string | null;
  hangup_cause: string | null;
  duration_seconds: number | null;
  [field: string]: unknown;
}

const read = async (id: string) => {
  const res = await stack.api.inject({
    method: 'GET',
    url: `/api/v1/sessions/${id}`,
    headers: tenant.headers,
  });
  return { status: res.statusCode, body: res.json<SessionBody>() };
};
const listed = async (query = ''): Promise<string[]> => {
  const res = await stack.api.inject({
    method: 'GET',
    url: `/api/v1/sessions?limit=100${query}`,
    headers: tenant.headers,
  });
  expect(res.statusCode).toBe(200);
  return res.json<{ sessions: SessionBody[] }>().sessions.map((s) => s.session_uuid);
};

describe('sessions as the media nodes write them', () => {
  it('an inbound call is ringing, answered, then ended with its cause and duration', async () => {
    const { session } = await inboundCall(stack, did);
    expect((await read(session)).body).toMatchObject({
      direction: 'inbound',
      did,
      status: 'ringing',
      answered_at: null,
      ended_at: null,
    });
    expect(await listed('&status=active')).toContain(session);

    await stack.command(tenant, session, 'answer');
    await stack.events.of(session, 'call.answered');
    await expect.poll(async () => (await read(session)).body.status).toBe('answered');
    expect(Date.parse((await read(session)).body.answered_at ?? '')).toBeGreaterThan(0);

    await stack.command(tenant, session, 'hangup');
    const hangup = await stack.events.of(session, 'call.hangup');
    const ended = (await read(session)).body;
    expect(ended).toMatchObject({
      status: 'ended',
      hangup_cause: hangup.hangup_cause,
      duration_seconds: hangup.duration_seconds,
    });
    expect(Date.parse(ended.ended_at ?? '')).toBeGreaterThan(0);
    expect(await listed('&status=ended')).toContain(session);
    expect(await listed('&status=active')).not.toContain(session);
  });

  it('a dial goes ringing, early_media, answered, with its to, from and metadata', async () => {
    const to = mobile();
    // Either node may place it: both simulators ring the number.
    for (const control of [stack.control, second.control])
      await control.number(to, 'answer', 300, true);
    const res = await stack.dial(tenant, { to, from, metadata: { order: 9 } });
    const session = res.body.session_uuid as string;
    expect((await read(session)).body).toMatchObject({
      direction: 'outbound',
      to,
      from,
      status: 'ringing',
      metadata: { order: 9 },
    });
    await stack.events.of(session, 'session.early_media');
    await expect.poll(async () => (await read(session)).body.status).not.toBe('ringing');
    await stack.events.of(session, 'call.answered');
    await expect.poll(async () => (await read(session)).body.status).toBe('answered');
    expect(await listed('&direction=outbound&status=active')).toContain(session);
    expect(await listed('&direction=inbound')).not.toContain(session);
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
    expect((await read(session)).body.status).toBe('ended');
  });

  it('a session on another media node is listed, and gone once its grace has passed', async () => {
    const { session } = await inboundCall(stack, did, second);
    expect(await listed()).toContain(session);
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
    expect(await listed('&status=ended')).toContain(session);
    await expect.poll(async () => (await read(session)).status, { timeout: 5000 }).toBe(404);
    expect(await listed()).not.toContain(session);

    // The next hangup of the app on that node prunes the expired entry from the index.
    const { session: next } = await inboundCall(stack, did, second);
    await stack.command(tenant, next, 'hangup');
    await stack.events.of(next, 'call.hangup');
    const index = stack.keys.appSessions(tenant.appId, 'ended', 'inbound');
    expect(await stack.redis.zscore(index, session)).toBeNull();
    expect(await stack.redis.zscore(index, next)).not.toBeNull();
  });
});
