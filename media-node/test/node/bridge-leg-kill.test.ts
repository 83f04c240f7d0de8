// A bridge leg's uuid_kill when the far side has already hung the leg up is normal (logged at
// debug), unlike any other failure (a warning): the replies of a real simulator decide which.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killOutcome } from '../../src/conference/bridge-leg.js';
import { EslClient, control, startTestSimulator } from '../sim/helpers.js';
import type { Simulator } from '../../sim/index.js';

let sim: Simulator;
let client: EslClient;

beforeAll(async () => {
  sim = await startTestSimulator();
  client = await EslClient.connect(sim.eslPort);
});
afterAll(async () => {
  client.close();
  await sim.close();
});

describe('uuid_kill of a bridge leg', () => {
  it('a live leg is killed; once the far side has ended it, it is gone, not failed', async () => {
    const { json } = await control(sim, 'POST', '/sim/calls', { to: '1', from: '2' });
    const uuid = json.uuid as string;
    await client.waitEvent('CHANNEL_PARK', uuid);
    expect(killOutcome(await client.api(`uuid_kill ${uuid} NORMAL_CLEARING`))).toBe('killed');
    await client.waitEvent('CHANNEL_DESTROY', uuid);
    const again = await client.api(`uuid_kill ${uuid} NORMAL_CLEARING`);
    expect(again).toBe('-ERR No such channel!\n'); // FreeSWITCH's reply (trace h_uuid_kill)
    expect(killOutcome(again)).toBe('gone');
    expect(killOutcome(await client.api(`uuid_kill ${randomUUID()}`))).toBe('gone');
  });

  it('any other refusal is a failure', () => {
    expect(killOutcome('-ERR not connected to FreeSWITCH\n')).toBe('failed');
    expect(killOutcome('-USAGE: <uuid> [cause]\n')).toBe('failed');
  });
});
