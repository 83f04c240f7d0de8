import { describe, expect, it } from 'vitest';
import { COMMAND_EXPIRED } from '../../src/stream/command-failure.js';
import { mobile } from './harness.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0735557777';

const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
const audio = useAudio();

describe('the command deadline', () => {
  it('a command read after its deadline is answered expired and not executed', async () => {
    // One command at a time: a playback whose audio is slow holds the only slot until its 2 s
    // timeout, so the answer behind it is read about 2 s after the api accepted it.
    const { node, control } = await stack.startNode({
      COMMAND_CONCURRENCY: '1',
      COMMAND_DEADLINE_MS: '1000',
    });
    const uuid = await control.call(did, mobile());
    const session = `${node.prefix}-${uuid}`;
    await stack.events.of(session, 'call.new');

    await stack.command(tenant, session, 'playback/start', {
      urls: [`${audio.base}/slow10000ms.wav`],
      command_uid: 'slow',
    });
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
});
