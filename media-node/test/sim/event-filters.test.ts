// A listener's `filter` lines, as mod_event_socket applies them: in order, each only to events
// carrying its header; `+`/no sign lets a match through, `-` keeps a match out whatever matched
// before; values compare without regard to case; `/…/` is a regular expression.
import { describe, expect, it } from 'vitest';
import { EslClient, control, useSimulator, type Ev } from './helpers.js';

/** Its client runs the calls, subscribed to everything, unfiltered. */
const fx = useSimulator();

/** A client subscribed to every channel event, with these filters; asserts each one's reply. */
async function filtered(filters: readonly string[]): Promise<EslClient> {
  const client = await EslClient.connect(fx.sim.eslPort);
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
  const { sim, client: driver } = fx;
  const { json } = await control(sim, 'POST', '/sim/calls', { to: '100', from: '200' });
  const uuid = json.uuid as string;
  await driver.waitEvent('CHANNEL_PARK', uuid);
  expect(await driver.execute(uuid, 'answer', '', 'app-answer', true)).toBe('+OK');
  await driver.waitEvent('CHANNEL_EXECUTE_COMPLETE', uuid);
  expect(await driver.api(`uuid_kill ${uuid}`)).toBe('+OK\n');
  await driver.waitEvent('CHANNEL_DESTROY', uuid);
  await driver.api('status'); // the simulator has written every event of the call by its reply
  return client.events
    .filter((e) => e['Unique-ID'] === uuid && e['Event-Name'] !== 'CHANNEL_STATE')
    .map(describeEvent);
}

function describeEvent(e: Ev): string {
  const app = e.Application;
  return app ? `${e['Event-Name']}(${app})` : (e['Event-Name'] ?? '');
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
});
