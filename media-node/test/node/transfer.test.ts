// transfer, end to end: an answered call places a new call (a session of its own, with its
// parent) and is bridged to it once it answers; meanwhile it hears ringback. The simulator's
// number book decides how the dialled number behaves: answered, busy, unanswered or rejected.
import { describe, expect, it } from 'vitest';
import { answeredCall, type Call } from './calls.js';
import { mobile, type Ev } from './harness.js';
import { loudest } from './tones.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0733550000';
const cid = '0722550000';
const stack = useStack();
const tenant = useTenant(stack, { dids: [did], cids: [cid] });
/** The ringback the node plays by default (TRANSFER_RINGBACK): 400 Hz, 1 s on, 3 s off. */
const RINGBACK_HZ = 400;

let uids = 0;

/** `caller` transfers to `to`: the 202, with the new leg's session. */
async function transfer(caller: Call, to: string, timeoutSec = 10) {
  const uid = `transfer-${++uids}`;
  const res = await stack.commandAfterCooldown(tenant, caller.session, 'transfer', {
    to,
    from: cid,
    timeout_sec: timeoutSec,
    metadata: { order: uid },
    command_uid: uid,
  });
  expect(res).toMatchObject({
    status: 202,
    body: { status: 'in_progress', timeout_ms: timeoutSec * 1000 + 2000 },
  });
  const leg = String(res.body.peer_session_uuid);
  expect(leg.slice(0, 5)).toBe(caller.session.slice(0, 5));
  return { uid, leg, legUuid: leg.slice(6) };
}

const result = (caller: Call, uid: string, timeoutMs = 15_000): Promise<Ev> =>
  stack.events.ofCommand(caller.session, 'command.result', uid, timeoutMs);

/** The leg's events carry its parent, and its metadata. */
function legEvents(leg: string): Ev[] {
  return stack.events.session(leg);
}

async function channelOf(uuid: string) {
  return (await stack.control.calls()).find((c) => c.uuid === uuid);
}

describe('transfer', () => {
  it('rings (the caller hears ringback), then bridges the new leg, a session of the same app with its parent; its hangup leaves the caller up', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 2500);
    const caller = await answeredCall(stack, tenant, did);
    const { uid, leg, legUuid } = await transfer(caller, to);

    expect(await result(caller, uid)).toMatchObject({
      command: 'call.transfer',
      success: true,
      outcome: 'answered',
      peer_session_uuid: leg,
    });
    expect(await stack.events.of(caller.session, 'call.bridged')).toMatchObject({
      peer_session_uuid: leg,
      command_uid: uid,
    });
    const names = legEvents(leg).map((e) => e.event);
    expect(names.slice(0, 4)).toEqual([
      'session.dialing',
      'session.ringing',
      'call.answered',
      'call.bridged',
    ]);
    for (const event of legEvents(leg).filter((e) => e.event !== 'call.bridged')) {
      expect(event, event.event).toMatchObject({
        parent_session_uuid: caller.session,
        metadata: { order: uid },
      });
    }
    expect(legEvents(leg)[0]).toMatchObject({ to, from: cid });
    expect(await stack.redis.hget(stack.keys.session(leg), 'parent_session_uuid')).toBe(
      caller.session,
    );
    const shown = await stack.api.inject({
      method: 'GET',
      url: `/api/v1/sessions/${leg}`,
      headers: tenant.headers,
    });
    expect(shown.json()).toMatchObject({
      parent_session_uuid: caller.session,
      bridge: { peer_session_uuid: caller.session, state: 'bridged' },
      to,
      from: cid,
      metadata: { order: uid },
    });

    // While the leg rang (2.5 s) the caller heard ringback; it stopped with the bridge.
    const heard = await stack.control.heard(caller.uuid);
    expect(loudest(heard, RINGBACK_HZ)).toBeGreaterThan(3000);
    const bridgedAt = heard.length;
    await stack.control.say(legUuid, 1000, 400);
    await new Promise((resolve) => setTimeout(resolve, 700));
    const after = await stack.control.heard(caller.uuid);
    expect(loudest(after, 1000, bridgedAt)).toBeGreaterThan(5000);
    expect(loudest(after, RINGBACK_HZ, bridgedAt)).toBeLessThan(300);

    await stack.control.hangup(legUuid);
    expect(await stack.events.of(leg, 'call.unbridged')).toMatchObject({ reason: 'hangup' });
    expect(await stack.events.of(leg, 'call.hangup')).toMatchObject({
      hangup_cause: 'completed',
      parent_session_uuid: caller.session,
    });
    expect(await stack.events.of(caller.session, 'call.unbridged')).toMatchObject({
      reason: 'peer_hangup',
      peer_session_uuid: leg,
    });
    expect(await channelOf(caller.uuid)).toMatchObject({ answer_state: 'answered' });
    await stack.command(tenant, caller.session, 'hangup');
    await stack.events.of(caller.session, 'call.hangup');
    await expect.poll(async () => (await stack.control.calls()).length).toBe(0);
  });

  it.each([
    ['busy', 'busy', 'busy'],
    ['no_answer', 'no_answer', 'no_answer'],
    ['reject', 'rejected', 'rejected'],
    ['fail', 'failed', 'failed'],
  ] as const)(
    'a number that answers %s: command.result false (%s), the leg ends, the caller stays up, parked and free to transfer again',
    async (behavior, outcome, hangupCause) => {
      const to = mobile();
      await stack.control.number(to, behavior, 800);
      const caller = await answeredCall(stack, tenant, did);
      const { uid, leg } = await transfer(caller, to, behavior === 'no_answer' ? 1 : 10);
      const failed = await result(caller, uid);
      expect(failed).toMatchObject({
        success: false,
        outcome,
        peer_session_uuid: leg,
      });
      expect(failed.error).toEqual(expect.any(String));
      expect(await stack.events.of(leg, 'call.hangup')).toMatchObject({
        hangup_cause: hangupCause,
        parent_session_uuid: caller.session,
      });
      // The leg's end comes before the result, and neither side was ever bridged.
      const all = stack.events.all;
      expect(all.indexOf(await stack.events.of(leg, 'call.hangup'))).toBeLessThan(
        all.indexOf(failed),
      );
      for (const session of [caller.session, leg]) {
        expect(stack.events.has(session, 'call.bridged')).toBe(false);
        expect(stack.events.has(session, 'call.unbridged')).toBe(false);
      }
      expect(await stack.redis.hget(stack.keys.session(caller.session), 'bridge_state')).toBeNull();
      expect(await channelOf(caller.uuid)).toMatchObject({ answer_state: 'answered' });
      // The ringback stopped: nothing heard since the result.
      const since = (await stack.control.heard(caller.uuid)).length;
      await new Promise((resolve) => setTimeout(resolve, 1200));
      expect(loudest(await stack.control.heard(caller.uuid), RINGBACK_HZ, since)).toBeLessThan(300);

      const again = await transfer(caller, mobile());
      expect(await result(caller, again.uid)).toMatchObject({ success: true });
      await stack.command(tenant, caller.session, 'hangup');
      expect(await stack.events.of(again.leg, 'call.unbridged')).toMatchObject({
        reason: 'peer_hangup',
      });
      await stack.command(tenant, again.leg, 'hangup');
      await stack.events.of(again.leg, 'call.hangup');
      await expect.poll(async () => (await stack.control.calls()).length).toBe(0);
    },
  );

  it('the caller hangs up while the leg rings: the leg is cancelled, the transfer fails', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 5000);
    const caller = await answeredCall(stack, tenant, did);
    const { uid, leg } = await transfer(caller, to);
    await stack.events.of(leg, 'session.ringing');
    await stack.control.hangup(caller.uuid);
    expect(await result(caller, uid)).toMatchObject({ success: false, outcome: 'failed' });
    expect(await stack.events.of(leg, 'call.hangup')).toMatchObject({ hangup_cause: 'no_answer' });
    await stack.events.of(caller.session, 'call.hangup');
    for (const session of [caller.session, leg])
      expect(stack.events.has(session, 'call.unbridged')).toBe(false);
    await expect.poll(async () => (await stack.control.calls()).length).toBe(0);
  });
});
