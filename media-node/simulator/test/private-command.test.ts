// PRIVATE_COMMAND, which FreeSWITCH fires after a sendmsg once the channel has run it: not for a
// message that park takes while the call has no media. Each sequence is what FreeSWITCH 1.10.12
// sent for the same inbound call (parked by the dialplan, unanswered) and messages.
import { describe, expect, it } from 'vitest';
import { parkedInboundCall, useSimulator } from './helpers.js';

const fx = useSimulator();

async function hangupMessage(uuid: string): Promise<void> {
  const reply = await fx.client.command(`sendmsg ${uuid}`, {
    'call-command': 'hangup',
    'hangup-cause': 'NORMAL_CLEARING',
  });
  expect(reply).toBe('+OK');
}

/** The call's events once it is gone, as `NAME(application)`. */
async function eventsOf(uuid: string): Promise<string[]> {
  await fx.client.waitEvent('CHANNEL_DESTROY', uuid);
  return fx.client.trail(uuid);
}

const parked = ['CHANNEL_CREATE', 'CHANNEL_EXECUTE(park)', 'CHANNEL_PARK'];
const answered = ['CHANNEL_EXECUTE(answer)', 'CHANNEL_ANSWER', 'CHANNEL_EXECUTE_COMPLETE(answer)'];
const unparked = [
  'CHANNEL_UNPARK',
  'CHANNEL_EXECUTE_COMPLETE(park)',
  'CHANNEL_HANGUP_COMPLETE',
  'CHANNEL_DESTROY',
];

describe('PRIVATE_COMMAND after a sendmsg', () => {
  it('is not fired for a message park takes before the call has media', async () => {
    const uuid = await parkedInboundCall(fx);
    await hangupMessage(uuid);
    expect(await eventsOf(uuid)).toEqual([...parked, 'CHANNEL_HANGUP', ...unparked]);
  });

  it('is fired for every message after the answer', async () => {
    const uuid = await parkedInboundCall(fx);
    expect(await fx.client.execute(uuid, 'answer', '', 'answer-1', true)).toBe('+OK');
    await fx.client.waitEvent('CHANNEL_EXECUTE_COMPLETE', uuid);
    await hangupMessage(uuid);
    expect(await eventsOf(uuid)).toEqual([
      ...parked,
      ...answered,
      'CHANNEL_HANGUP',
      'PRIVATE_COMMAND',
      ...unparked,
    ]);
  });

  it('follows a message sent right behind the answer, once it has run', async () => {
    const uuid = await parkedInboundCall(fx);
    await fx.client.execute(uuid, 'answer', '', 'answer-2');
    await fx.client.execute(uuid, 'playback', 'silence_stream://100', 'playback-2');
    await fx.client.waitEvent(
      'CHANNEL_EXECUTE_COMPLETE',
      uuid,
      (e) => e.Application === 'playback',
    );
    expect(await fx.client.api(`uuid_kill ${uuid}`)).toBe('+OK\n');
    expect(await eventsOf(uuid)).toEqual([
      ...parked,
      ...answered,
      'CHANNEL_EXECUTE(playback)',
      'PLAYBACK_START',
      'PLAYBACK_STOP',
      'CHANNEL_EXECUTE_COMPLETE(playback)',
      'PRIVATE_COMMAND',
      'CHANNEL_HANGUP',
      ...unparked,
    ]);
  });
});
