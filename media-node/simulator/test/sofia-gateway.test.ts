// The simulator's sofia gateways, as mod_sofia answers for them (mod_sofia.c cmd_status and
// sofia_outgoing_channel): `sofia status gateway <name>` and an originate through a gateway.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/index.js';
import { EslClient } from './helpers.js';

let sim: Simulator;
let client: EslClient;

beforeAll(async () => {
  sim = await startSimulator({ eslPort: 0, httpPort: 0, gateways: ['carrier'] });
  client = await EslClient.connect(sim.eslPort);
});
afterAll(async () => {
  client.close();
  await sim.close();
});

const RULE = '='.repeat(97);

describe('sofia gateways', () => {
  it('sofia status gateway <unknown>: Invalid Gateway!', async () => {
    expect(await client.api('sofia status gateway pstn')).toBe('Invalid Gateway!\n');
  });

  it('sofia status gateway <known>: its fields between two rules, up', async () => {
    const reply = await client.api('sofia status gateway carrier');
    const lines = reply.split('\n');
    expect(lines[0]).toBe(RULE);
    expect(lines[1]).toBe('Name    \tcarrier');
    expect(lines[2]).toBe('Profile \texternal');
    expect(lines).toContain('State   \tNOREG');
    expect(lines).toContain('Status  \tUP');
    expect(lines.at(-2)).toBe(RULE);
    expect(reply.endsWith(`${RULE}\n`)).toBe(true);
  });

  it('originate through an unknown gateway: -ERR INVALID_GATEWAY, no channel at all', async () => {
    const uuid = randomUUID();
    expect(
      await client.bgapi(
        `originate {origination_uuid=${uuid}}sofia/gateway/pstn/0501234567 &park()`,
      ),
    ).toBe('-ERR INVALID_GATEWAY\n');
    expect(client.sequence(uuid)).toEqual([]);
  });

  it('originate through a known gateway rings and answers', async () => {
    const uuid = randomUUID();
    expect(
      await client.bgapi(
        `originate {origination_uuid=${uuid}}sofia/gateway/carrier/0501234567 &park()`,
      ),
    ).toBe(`+OK ${uuid}\n`);
    await client.api(`uuid_kill ${uuid}`);
  });
});
