import { describe, expect, it } from 'vitest';
import { answeredCall, inboundCall, request } from './calls.js';
import { fastSweeper } from './harness.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0735550000';

const stack = useStack({
  nodeEnv: {
    COMMAND_CLAIM_IDLE_MS: '200',
    COMMAND_CLAIM_INTERVAL_MS: '100',
    ...fastSweeper(500),
  },
});
const tenant = useTenant(stack, { dids: [did] });

describe('a media node that dies', () => {
  it('a restarted node adopts its live calls and executes the command a dead consumer left pending', async () => {
    const first = stack.node;
    const { session } = await inboundCall(stack, did);

    // The node dies without a goodbye (its heartbeat lives on until its TTL)...
    await first.close({ retire: false });
    const res = await stack.command(tenant, session, 'answer', { command_uid: 'claimed' });
    expect(res.status).toBe(202);
    // ...and a consumer of the dead process had read the command but never acknowledged it.
    const stream = stack.keys.commandStream(first.prefix);
    const read = (await stack.redis.xreadgroup(
      'GROUP',
      'media-node',
      'dead-consumer',
      'COUNT',
      10,
      'STREAMS',
      stream,
      '>',
    )) as [string, [string, string[]][]][];
    expect(read[0]![1]).toHaveLength(1);

    // The same node name comes back (same prefix), on the same FreeSWITCH.
    const { node: second } = await stack.startNode({ NODE_NAME: first.name }, true);
    expect(second.prefix).toBe(first.prefix);
    expect(second.sessions.get(session)).toBeDefined();
    expect(await stack.events.of(session, 'call.answered', 3000)).toMatchObject({
      command_uid: 'claimed',
      success: true,
    });
    expect(await stack.events.of(session, 'command.result')).toMatchObject({ success: true });
    await expect
      .poll(async () => Number((await stack.redis.xpending(stream, 'media-node'))[0]))
      .toBe(0);

    await stack.command(tenant, session, 'hangup');
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'completed',
    });
    // Acknowledged commands are trimmed away (all but the last delivered entry).
    await expect.poll(() => stack.redis.xlen(stream)).toBeLessThanOrEqual(1);
    await second.close();
  });

  it('killing a node mid-call yields exactly one synthetic call.hangup, from one of two sweepers', async () => {
    const { node: victim, control } = await stack.startNode();
    const sweepers = [(await stack.startNode()).node, (await stack.startNode()).node];
    const { session } = await answeredCall(stack, tenant, did, { node: victim, control });

    await victim.close(); // no drain; the heartbeat is deleted
    const refused = await stack.command(tenant, session, 'hangup');
    expect(refused.status).toBe(404);

    const hangup = await stack.events.of(session, 'call.hangup', 4000);
    expect(hangup).toMatchObject({ hangup_cause: 'failed', duration_seconds: 0 });
    await Promise.all(sweepers.map((s) => s.sweep()));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const hangups = stack.events.session(session).filter((e) => e.event === 'call.hangup');
    expect(hangups).toHaveLength(1);
    expect(await stack.redis.hget(stack.keys.session(session), 'end_reason')).toBe('orphaned');
    expect(await stack.redis.sismember(stack.keys.nodeSessions(victim.prefix), session)).toBe(0);
    // The api lists it as ended, with the synthetic hangup's cause, no longer as active.
    const read = await request(stack, tenant, 'GET', `/api/v1/sessions/${session}`);
    expect(read.body).toMatchObject({
      status: 'ended',
      hangup_cause: 'failed',
      duration_seconds: 0,
    });
    const active = await request(stack, tenant, 'GET', '/api/v1/sessions?status=active');
    const listed = active.body.sessions as { session_uuid: string }[];
    expect(listed.map((s) => s.session_uuid)).not.toContain(session);
  });
});
