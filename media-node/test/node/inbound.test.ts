import { describe, expect, it } from 'vitest';
import { ADMIN_KEY, mobile } from './harness.js';
import { answeredCall, inboundCall } from './calls.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0731234567';

const sessionOf = (uuid: string) => `${stack.node.prefix}-${uuid}`;

const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });

describe.concurrent('inbound calls', () => {
  it('an inbound call to a routed DID gives call.new with caller_id and did', async () => {
    const caller = mobile();
    const uuid = await stack.control.call(did, caller);
    const session = sessionOf(uuid);
    const event = await stack.events.of(session, 'call.new');
    expect(event).toMatchObject({
      event: 'call.new',
      session_uuid: session,
      caller_id: caller,
      did,
      app_id: tenant.appId,
    });
    expect(await stack.redis.hget(stack.keys.session(session), 'app_id')).toBe(tenant.appId);
  });

  it('the dialplan variable voicegw_app_id wins over the DID map', async () => {
    const other = await stack.tenant();
    const uuid = await stack.control.call('0739999999', mobile(), other.appId);
    const event = await stack.events.of(sessionOf(uuid), 'call.new');
    expect(event.app_id).toBe(other.appId);
  });

  // Alone: its last call is rejected, which the test below counts on the same node.
  it.sequential(
    'a DID moved to another app takes its next call there, though the node had read the old route',
    async () => {
      const moved = '0737777777';
      const first = await stack.tenant({ dids: [moved] });
      const before = await stack.control.call(moved, mobile());
      expect((await stack.events.of(sessionOf(before), 'call.new')).app_id).toBe(first.appId);

      const admin = async (method: 'PUT' | 'DELETE', url: string, body?: string[]) => {
        const res = await stack.api.inject({
          method,
          url: `/admin/apps/${url}`,
          headers: { 'x-admin-api-key': ADMIN_KEY, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
        });
        expect(res.statusCode).toBe(200);
      };
      const second = await stack.tenant();
      await admin('DELETE', `${first.appId}/dids/${moved}`);
      await admin('PUT', `${second.appId}/dids`, [moved]);
      const after = await stack.control.call(moved, mobile());
      const event = await stack.events.of(sessionOf(after), 'call.new');
      expect(event.app_id).toBe(second.appId);
      expect(await stack.redis.hget(stack.keys.session(sessionOf(after)), 'app_id')).toBe(
        second.appId,
      );

      // Released by every app, it routes nowhere: the next call is rejected, not taken.
      await admin('DELETE', `${second.appId}/dids/${moved}`);
      const unrouted = await stack.control.call(moved, mobile());
      await expect
        .poll(async () => (await stack.control.calls()).some((c) => c.uuid === unrouted))
        .toBe(false);
      expect(stack.events.session(sessionOf(unrouted))).toEqual([]);
    },
  );

  it('a call to a DID no app owns is rejected with CALL_REJECTED and no event', async () => {
    const before = await rejectedCount();
    const uuid = await stack.control.call('0738888888', mobile());
    await expect
      .poll(async () => (await stack.control.calls()).some((c) => c.uuid === uuid))
      .toBe(false);
    expect(await rejectedCount()).toBe(before + 1);
    expect(stack.events.session(sessionOf(uuid))).toEqual([]);
  });

  it('answer gives call.answered with the command_uid, then command.result success', async () => {
    const { session } = await inboundCall(stack, did);
    const res = await stack.command(tenant, session, 'answer', { command_uid: 'ans-1' });
    expect(res.status).toBe(202);
    const answered = await stack.events.of(session, 'call.answered');
    expect(answered).toMatchObject({ command_uid: 'ans-1', success: true });
    const result = await stack.events.of(session, 'command.result');
    expect(result).toMatchObject({
      operation_id: res.body.operation_id,
      command: 'call.answer',
      command_uid: 'ans-1',
      success: true,
    });
    const names = stack.events.session(session).map((e) => e.event);
    expect(names).toEqual(['call.new', 'call.answered', 'command.result']);
  });

  it('answer not confirmed within 2000 ms reports success false and no call.answered', async () => {
    const { session } = await inboundCall(stack, did);
    // An endless silence stream holds the unanswered channel (event-lock): answer has to wait.
    await stack.command(tenant, session, 'playback/silence', { command_uid: 'hold' });
    await stack.events.waitFor((e) => e.session_uuid === session && e.command_uid === 'hold');
    const started = Date.now();
    await stack.command(tenant, session, 'answer', { command_uid: 'late-answer' });
    const result = await stack.events.waitFor(
      (e) => e.session_uuid === session && e.command_uid === 'late-answer',
      4000,
    );
    expect(result).toMatchObject({
      event: 'command.result',
      command: 'call.answer',
      success: false,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900);
    expect(stack.events.has(session, 'call.answered')).toBe(false);
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
  });

  it('hangup gives command.result at once, then call.hangup completed with its duration', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const res = await stack.command(tenant, session, 'hangup', { command_uid: 'bye-1' });
    expect(res.status).toBe(202);
    const hangup = await stack.events.of(session, 'call.hangup');
    expect(hangup).toMatchObject({ hangup_cause: 'completed', duration_seconds: 0 });
    const names = stack.events.session(session).map((e) => e.event);
    expect(names.slice(-2)).toEqual(['command.result', 'call.hangup']);
    expect(stack.events.session(session).at(-2)).toMatchObject({
      command: 'call.hangup',
      command_uid: 'bye-1',
      success: true,
    });
    expect(await stack.redis.hget(stack.keys.session(session), 'ended_at')).not.toBeNull();
  });

  it('hangup with a cause reports the mapped hangup_cause', async () => {
    const { session } = await inboundCall(stack, did);
    await stack.command(tenant, session, 'hangup', { cause: 'USER_BUSY' });
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({ hangup_cause: 'busy' });
  });

  it('the caller hanging up before an answer ends the session as no_answer', async () => {
    const uuid = await stack.control.call(did, mobile());
    const session = sessionOf(uuid);
    await stack.events.of(session, 'call.new');
    await stack.control.hangup(uuid, 'ORIGINATOR_CANCEL');
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'no_answer',
      duration_seconds: 0,
    });
  });

  it('disconnect returns the call to the dialplan with command.result at once', async () => {
    const { session } = await inboundCall(stack, did);
    const res = await stack.command(tenant, session, 'disconnect', { command_uid: 'dc-1' });
    expect(res.status).toBe(202);
    expect(await stack.events.of(session, 'command.result')).toMatchObject({
      command: 'call.disconnect',
      command_uid: 'dc-1',
      success: true,
    });
  });

  it('a command for a session that has ended answers 404 Session not found', async () => {
    const { session } = await inboundCall(stack, did);
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
    const res = await stack.command(tenant, session, 'answer', { command_uid: 'late' });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      success: false,
      error: 'Session not found',
      code: 'session_not_found',
    });
  });
});

async function rejectedCount(): Promise<number> {
  const metric = await stack.node.metrics.inboundCalls.get();
  return metric.values.find((v) => v.labels.outcome === 'rejected')?.value ?? 0;
}
