import { describe, expect, it } from 'vitest';
import { COMMAND_EXPIRED } from '../../src/stream/command-failure.js';
import { inboundCall, request } from './calls.js';
import { mobile } from './harness.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0735557777';
const from = '0725557777';

// One node, one command at a time: a playback whose audio is slow holds the only slot until its
// 2 s timeout, so whatever is sent behind it is read about 2 s after the api accepted it.
const stack = useStack({ nodeEnv: { COMMAND_CONCURRENCY: '1', COMMAND_DEADLINE_MS: '1000' } });
const tenant = useTenant(stack, { dids: [did], cids: [from] });
const audio = useAudio();

describe('the command deadline', () => {
  it('a command read after its deadline is answered expired and not executed', async () => {
    const { session } = await inboundCall(stack, did);
    await holdTheSlot(session);
    const res = await stack.command(tenant, session, 'answer', { command_uid: 'stale' });
    expect(res.status).toBe(202);

    const stale = await stack.events.waitFor(
      (e) => e.event === 'command.result' && e.command_uid === 'stale',
      6000,
    );
    expect(stale).toMatchObject({
      session_uuid: session,
      operation_id: res.body.operation_id,
      command: 'call.answer',
      success: false,
      error: COMMAND_EXPIRED,
    });
    // A command within its deadline still runs: the barrier after which nothing of the stale
    // answer can still come.
    await stack.command(tenant, session, 'hangup', { command_uid: 'fresh' });
    await stack.events.of(session, 'call.hangup');
    const events = stack.events.session(session);
    expect(events.filter((e) => e.event === 'call.answered')).toEqual([]);
    expect(events.filter((e) => e.command_uid === 'stale')).toHaveLength(1);
    expect(events.find((e) => e.command_uid === 'fresh')).toMatchObject({ success: true });
  });

  it('a dial read after its deadline places no call: its session ends failed at once', async () => {
    const { session: caller } = await inboundCall(stack, did);
    const to = mobile();
    await stack.control.number(to, 'answer', 50);
    await holdTheSlot(caller);
    const res = await stack.dial(tenant, { to, from, metadata: { order: 9 } });
    expect(res.status).toBe(202);
    const session = res.body.session_uuid as string;

    expect(await stack.events.of(session, 'call.hangup', 6000)).toMatchObject({
      hangup_cause: 'failed',
      duration_seconds: 0,
      metadata: { order: 9 },
    });
    expect(stack.events.session(session).map((e) => e.event)).toEqual(['call.hangup']);
    const calls = await stack.control.calls();
    expect(calls.map((c) => c.uuid)).not.toContain(session.slice(6));
    const status = await request(stack, tenant, 'GET', `/api/v1/dial/${session}`);
    expect(status.body).toMatchObject({ status: 'ended' });
    await stack.command(tenant, caller, 'hangup');
  });

  it('a room play read after its deadline is not played and the room says stopped', async () => {
    const room = await request(stack, tenant, 'POST', '/api/v1/conferences', { name: 'late-play' });
    const roomId = room.body.room_id as string;
    const { session: member } = await inboundCall(stack, did);
    await stack.command(tenant, member, 'answer');
    await stack.command(tenant, member, 'conference/join', { room_id: roomId });
    await stack.events.of(member, 'conference.member.joined');

    const { session: caller } = await inboundCall(stack, did);
    await holdTheSlot(caller);
    const play = await request(stack, tenant, 'POST', `/api/v1/conferences/${roomId}/play`, {
      urls: [`${audio.base}/tone10000ms.wav`],
    });
    expect(play.status).toBe(202);
    const operation = play.body.operation_id;

    // Run late, the play would keep the room playing for 10 s.
    await expect
      .poll(
        async () => (await request(stack, tenant, 'GET', `/api/v1/conferences/${roomId}`)).body,
        {
          timeout: 6000,
          interval: 100,
        },
      )
      .toMatchObject({ playback_status: 'stopped' });
    expect(stack.events.all.filter((e) => e.operation_id === operation)).toEqual([
      expect.objectContaining({ event: 'conference.play.started' }),
    ]);
    await stack.command(tenant, caller, 'hangup');
    await stack.command(tenant, member, 'hangup');
  });
});

/** A playback of audio that answers after 10 s: it holds the node's one slot for 2 s. */
async function holdTheSlot(session: string): Promise<void> {
  const res = await stack.command(tenant, session, 'playback/start', {
    urls: [`${audio.base}/slow10000ms.wav`],
  });
  expect(res.status).toBe(202);
}
