// A listener's `filter` lines, as mod_event_socket applies them: in order, each only to events
// carrying its header; `+`/no sign lets a match through, `-` keeps a match out whatever matched
// before; values compare without regard to case; `/…/` is a regular expression. Every sequence
// expected here is what FreeSWITCH 1.10.12 sent for the same filters and calls.
import { describe, expect, it } from 'vitest';
import { NODE_SUBSCRIPTION } from '@voicegw/media-node';
import { EslClient, parkedInboundCall, useSimulator } from './helpers.js';

/** Its client runs the calls, subscribed to everything, unfiltered. */
const fx = useSimulator();

/** A client subscribed to `events`, with these filters; asserts each one's reply. */
async function filtered(
  filters: readonly string[],
  events: readonly string[] = ['ALL'],
): Promise<EslClient> {
  const client = await EslClient.connect(fx.sim.eslPort, { events });
  for (const filter of filters) {
    const [header, ...value] = filter.split(' ');
    expect(await client.command(`filter ${filter}`)).toBe(
      `+OK filter added. [${header}]=[${value.join(' ')}]`,
    );
  }
  return client;
}

/**
 * An inbound call parked (CHANNEL_EXECUTE park, CHANNEL_PARK), answered by `sendmsg execute
 * answer` and killed; resolves once `client` has seen the call's last event (DESTROY), so that
 * everything it was going to receive of the call has come.
 */
async function callSeenBy(client: EslClient): Promise<string[]> {
  const { client: driver } = fx;
  const uuid = await parkedInboundCall(fx);
  expect(await driver.execute(uuid, 'answer', '', 'app-answer', true)).toBe('+OK');
  await driver.waitEvent('CHANNEL_EXECUTE_COMPLETE', uuid);
  expect(await driver.api(`uuid_kill ${uuid}`)).toBe('+OK\n');
  await driver.waitEvent('CHANNEL_DESTROY', uuid);
  await driver.api('status'); // the simulator has written every event of the call by its reply
  return client.trail(uuid);
}

describe('event filters', () => {
  it.each([
    [
      'let through only the events a filter matches, its value compared without case',
      ['Event-Name channel_park', 'Event-Name CHANNEL_ANSWER'],
      ['CHANNEL_PARK', 'CHANNEL_ANSWER'],
    ],
    [
      'keep out what a negative filter matches, even when a positive one matched first',
      ['Event-Name CHANNEL_EXECUTE', 'Event-Name CHANNEL_EXECUTE_COMPLETE', 'Application -park'],
      ['CHANNEL_EXECUTE(answer)', 'CHANNEL_EXECUTE_COMPLETE(answer)'],
    ],
    [
      'let an event through on any one positive filter: by name, or by application',
      ['Event-Name CHANNEL_PARK', 'Event-Name CHANNEL_EXECUTE_COMPLETE', 'Application answer'],
      [
        'CHANNEL_PARK',
        'CHANNEL_EXECUTE(answer)',
        'CHANNEL_EXECUTE_COMPLETE(answer)',
        'CHANNEL_EXECUTE_COMPLETE(park)',
      ],
    ],
  ] as const)('%s', async (_rule, filters, seen) => {
    const client = await filtered(filters);
    expect(await callSeenBy(client)).toEqual(seen);
    client.close();
  });

  it('read a value between slashes as a regular expression, and forget deleted filters', async () => {
    const client = await filtered([
      'Event-Name /^channel_(park|answer)$/i',
      'Event-Name CHANNEL_DESTROY',
    ]);
    expect(await client.command('filter delete Event-Name CHANNEL_DESTROY')).toBe(
      '+OK filter deleted. [Event-Name][CHANNEL_DESTROY]',
    );
    expect(await callSeenBy(client)).toEqual(['CHANNEL_PARK', 'CHANNEL_ANSWER']);
    client.close();
  });

  // What FreeSWITCH 1.10.12 (built from source) sent a client with the media node's subscription
  // and filters for the same calls and commands, on 2026-11-26.
  it('give the media node what FreeSWITCH gives it: park, answer, a playback, a prompt, a bridge', async () => {
    const { events, filters } = NODE_SUBSCRIPTION;
    const node = await filtered(
      filters.map((filter) => filter.join(' ')),
      events,
    );
    const { client: driver } = fx;
    const [call, leg] = [await parkedInboundCall(fx), await parkedInboundCall(fx)];
    for (const uuid of [call, leg]) {
      await driver.execute(uuid, 'answer', '', `answer-${uuid}`, true);
      await driver.waitEvent('CHANNEL_EXECUTE_COMPLETE', uuid);
    }
    const commands = [
      ['playback', 'tone_stream://%(200,0,440);loops=2'],
      ['play_and_get_digits', '1 1 1 500 # silence_stream://200 silence_stream://100 d \\d+'],
    ] as const;
    for (const [app, arg] of commands) {
      await driver.execute(call, app, arg, `${app}-${call}`, true);
      await driver.waitEvent('CHANNEL_EXECUTE_COMPLETE', call, (e) => e.Application === app);
    }
    expect(await driver.api(`uuid_setvar ${call} park_after_bridge true`)).toBe('+OK\n');
    expect(await driver.api(`uuid_bridge ${call} ${leg}`)).toBe(`+OK ${leg}\n`);
    await driver.waitEvent('CHANNEL_BRIDGE', call);
    for (const uuid of [call, leg]) {
      await driver.api(`uuid_kill ${uuid}`);
      await driver.waitEvent('CHANNEL_DESTROY', uuid);
    }
    await driver.api('status');

    const answered = ['CHANNEL_PARK', 'CHANNEL_ANSWER', 'CHANNEL_EXECUTE_COMPLETE(answer)'];
    const ended = ['CHANNEL_EXECUTE(uuid_bridge)', 'CHANNEL_HANGUP', 'CHANNEL_HANGUP_COMPLETE'];
    // The bridge's own events, which the node subscribed to later, are the originator's, in the
    // order of the bridge traces (fixtures/bridge-traces/1_bridge.json).
    const bridged = [
      'CHANNEL_EXECUTE(uuid_bridge)',
      'CHANNEL_BRIDGE',
      'CHANNEL_HANGUP',
      'CHANNEL_UNBRIDGE',
      'CHANNEL_HANGUP_COMPLETE',
    ];
    expect(node.trail(call)).toEqual([
      ...answered,
      'CHANNEL_EXECUTE(playback)',
      'PLAYBACK_START',
      'PLAYBACK_STOP',
      'CHANNEL_EXECUTE_COMPLETE(playback)',
      'CHANNEL_EXECUTE(play_and_get_digits)',
      'PLAYBACK_START',
      'PLAYBACK_STOP',
      'PLAYBACK_START',
      'PLAYBACK_STOP',
      'CHANNEL_EXECUTE_COMPLETE(play_and_get_digits)',
      ...bridged,
    ]);
    expect(node.trail(leg)).toEqual([...answered, ...ended]);
    node.close();
  });
});
