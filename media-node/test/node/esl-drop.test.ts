import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { inboundCall } from './calls.js';
import { fastSweeper } from './harness.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0737654321';

/** Cuts the event socket and waits until the node is back and resynchronised. */
async function outage(during: () => Promise<void> = async () => undefined): Promise<void> {
  const proxy = stack.proxy!;
  const lost = once(stack.node.esl, 'disconnected');
  proxy.down();
  await lost;
  await during();
  const back = once(stack.node.esl, 'connected');
  proxy.up();
  await back;
  await stack.node.synced();
}

const stack = useStack({
  viaProxy: true,
  nodeEnv: fastSweeper(300),
});
const tenant = useTenant(stack, { dids: [did] });

describe('event socket connection drops', () => {
  it('a dropped connection is survived: the call is kept and commands work after reconnect', async () => {
    const { session } = await inboundCall(stack, did);
    await outage();
    const res = await stack.command(tenant, session, 'answer', { command_uid: 'after-drop' });
    expect(res.status).toBe(202);
    expect(await stack.events.of(session, 'call.answered')).toMatchObject({
      command_uid: 'after-drop',
      success: true,
    });
    await stack.command(tenant, session, 'hangup');
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'completed',
    });
  });

  it('a reset connection (no goodbye) reconnects by itself', async () => {
    const { session } = await inboundCall(stack, did);
    const back = once(stack.node.esl, 'connected');
    stack.proxy!.cut();
    await back;
    await stack.node.synced();
    await stack.command(tenant, session, 'hangup', { command_uid: 'after-reset' });
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'completed',
    });
  });

  it('a call that ended while disconnected gets one synthetic call.hangup from its node when it is back', async () => {
    const { uuid, session } = await inboundCall(stack, did);
    await outage(() => stack.control.hangup(uuid));
    const hangup = await stack.events.of(session, 'call.hangup', 3000);
    expect(hangup).toMatchObject({ hangup_cause: 'failed', duration_seconds: 0 });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(stack.events.session(session).filter((e) => e.event === 'call.hangup')).toHaveLength(1);
  });

  it('while disconnected, commands report success false instead of hanging', async () => {
    const { session } = await inboundCall(stack, did);
    const proxy = stack.proxy!;
    const lost = once(stack.node.esl, 'disconnected');
    proxy.down();
    await lost;
    try {
      const res = await stack.command(tenant, session, 'answer', { command_uid: 'offline' });
      expect(res.status).toBe(202);
      expect(
        await stack.events.waitFor(
          (e) => e.session_uuid === session && e.command_uid === 'offline',
        ),
      ).toMatchObject({ event: 'command.result', success: false });
    } finally {
      const back = once(stack.node.esl, 'connected');
      proxy.up();
      await back;
      await stack.node.synced();
    }
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
  });
});
