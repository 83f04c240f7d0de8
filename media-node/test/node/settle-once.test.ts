// What a command leaves behind when FreeSWITCH's answers come late or never: an answer settles
// once (its count of commands in flight drops once), a dial's background-job handler goes with
// its session.
import { once } from 'node:events';
import { describe, expect, it, onTestFinished } from 'vitest';
import { mobile } from './harness.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0734443333';
const from = '0724443333';
/** Above the answer's 2000 ms wait, so its ESL reply can fail after the wait gave up. */
const ESL_REQUEST_TIMEOUT_MS = 2600;

const stack = useStack({
  viaProxy: true,
  nodeEnv: { ESL_REQUEST_TIMEOUT_MS: String(ESL_REQUEST_TIMEOUT_MS) },
});
const tenant = useTenant(stack, { dids: [did], cids: [from] });

describe('commands settle once', () => {
  it('answer whose ESL reply fails after the 2000 ms wait: one result, one call.answered, count back to 0', async () => {
    const uuid = await stack.control.call(did, mobile());
    const session = `${stack.node.prefix}-${uuid}`;
    await stack.events.of(session, 'call.new');
    const proxy = stack.proxy!;

    onTestFinished(() => proxy.release());
    proxy.hold(); // FreeSWITCH answers the channel, but neither its reply nor its events get through
    const res = await stack.command(tenant, session, 'answer', { command_uid: 'late-reply' });
    expect(res.status).toBe(202);
    await expect
      .poll(async () => (await stack.control.calls()).find((c) => c.uuid === uuid)?.answer_state)
      .toBe('answered');
    // A request sent after the answer's times out after it: once this one failed, so did the answer's.
    await expect(stack.node.esl.api('status')).rejects.toMatchObject({ name: 'EslTimeoutError' });
    expect(await stack.events.of(session, 'command.result', 1000)).toMatchObject({
      command_uid: 'late-reply',
      success: false,
    });
    expect(stack.node.sessions.get(session)?.answerCommands).toBe(0);

    proxy.release(); // CHANNEL_ANSWER arrives now: no command waits for it, the channel reports it
    await stack.events.of(session, 'call.answered');
    const again = await stack.command(tenant, session, 'answer', { command_uid: 'second' });
    expect(again.status).toBe(202);
    await stack.events.waitFor((e) => e.event === 'command.result' && e.command_uid === 'second');
    expect(stack.node.sessions.get(session)?.answerCommands).toBe(0);
    expect(
      stack.events
        .session(session)
        .filter((e) => e.event === 'call.answered' || e.event === 'command.result')
        .map((e) => [e.event, e.command_uid, e.success]),
    ).toEqual([
      ['command.result', 'late-reply', false],
      ['call.answered', undefined, undefined],
      ['call.answered', 'second', true],
      ['command.result', 'second', true],
    ]);
    await stack.control.hangup(uuid);
    await stack.events.of(session, 'call.hangup');
  });

  it("a dial's background-job handler is gone with its session, even when its BACKGROUND_JOB was lost", async () => {
    const baseline = stack.node.router.pendingJobs;
    const to = mobile();
    await stack.control.number(to, 'answer', 1500);
    const dial = await stack.dial(tenant, { to, from });
    expect(dial.status).toBe(202);
    const session = dial.body.session_uuid as string;
    await stack.events.of(session, 'session.ringing');
    expect(stack.node.router.pendingJobs).toBe(baseline + 1);

    // The event socket is down while the callee answers: the originate's BACKGROUND_JOB, sent
    // then, never reaches the node.
    const proxy = stack.proxy!;
    const lost = once(stack.node.esl, 'disconnected');
    proxy.down();
    onTestFinished(() => proxy.up());
    await lost;
    const uuid = session.slice(6);
    await expect
      .poll(async () => (await stack.control.calls()).find((c) => c.uuid === uuid)?.answer_state)
      .toBe('answered');
    const back = once(stack.node.esl, 'connected');
    proxy.up();
    await back;
    await stack.node.synced();
    await stack.control.hangup(uuid);
    await stack.events.of(session, 'call.hangup');
    await expect.poll(() => stack.node.router.pendingJobs).toBe(baseline);
  });
});
