import { describe, expect, it } from 'vitest';
import { mobile } from './harness.js';
import { inboundCall } from './calls.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0736660000';
const from = '0726660000';

const stack = useStack();
const tenant = useTenant(stack, { dids: [did], cids: [from] });

describe('draining (SIGTERM)', () => {
  it('a draining node takes no new calls or dials, lets active calls finish, then leaves', async () => {
    const { node, control } = await stack.startNode({ DRAIN_TIMEOUT_SEC: '30' });
    const { session: active } = await inboundCall(stack, did, { node, control });
    // The stack's own node is the other candidate for dials: retire it for this test.
    await stack.node.close();

    const drained = node.drain();
    await expect
      .poll(() => stack.redis.hget(stack.keys.nodeHeartbeat(node.prefix), 'draining'))
      .toBe('1');

    const refusedUuid = await control.call(did, mobile());
    await expect
      .poll(async () => (await control.calls()).some((c) => c.uuid === refusedUuid))
      .toBe(false);
    expect(stack.events.session(`${node.prefix}-${refusedUuid}`)).toEqual([]);

    const dial = await stack.dial(tenant, { to: mobile(), from });
    expect(dial.status).toBe(503);

    // The active call still takes commands, and ending it completes the drain.
    await stack.command(tenant, active, 'answer');
    await stack.events.of(active, 'call.answered');
    await stack.command(tenant, active, 'hangup');
    await stack.events.of(active, 'call.hangup');
    await drained;
    expect(await stack.redis.exists(stack.keys.nodeHeartbeat(node.prefix))).toBe(0);
  });

  it('calls still up at the drain deadline are hung up, each with its call.hangup', async () => {
    const { node, control } = await stack.startNode({ DRAIN_TIMEOUT_SEC: '0' });
    const { session } = await inboundCall(stack, did, { node, control });
    await node.drain();
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'failed',
    });
    expect(await stack.redis.exists(stack.keys.nodeHeartbeat(node.prefix))).toBe(0);
  });
});
