import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mobile, startStack, type Stack, type Tenant } from './harness.js';

let stack: Stack;
let tenant: Tenant;
const did = '0736660000';
const from = '0726660000';

beforeAll(async () => {
  stack = await startStack();
  tenant = await stack.tenant({ dids: [did], cids: [from] });
});
afterAll(() => stack.close());

async function callOn(control: Stack['control'], prefix: string): Promise<string> {
  const uuid = await control.call(did, mobile());
  const session = `${prefix}-${uuid}`;
  await stack.events.of(session, 'call.new');
  return session;
}

describe('draining (SIGTERM)', () => {
  it('a draining node takes no new calls or dials, lets active calls finish, then leaves', async () => {
    const { node, control } = await stack.startNode({ DRAIN_TIMEOUT_SEC: '30' });
    const active = await callOn(control, node.prefix);
    // The stack's own node is the other candidate for dials: retire it for this test.
    await stack.node.close();

    const drained = node.drain();
    await until(
      async () =>
        (await stack.redis.hget(stack.keys.nodeHeartbeat(node.prefix), 'draining')) === '1',
    );

    const refusedUuid = await control.call(did, mobile());
    await until(async () => !(await control.calls()).some((c) => c.uuid === refusedUuid));
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
    const session = await callOn(control, node.prefix);
    await node.drain();
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'failed',
    });
    expect(await stack.redis.exists(stack.keys.nodeHeartbeat(node.prefix))).toBe(0);
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
