// The event-socket client the tests and the benchmark drive the simulator with, over real TCP.
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator } from '../src/index.js';
import { EslClient, control, startTestSimulator } from './helpers.js';

let sim: Simulator;

beforeAll(async () => {
  sim = await startTestSimulator();
});

afterAll(async () => {
  await sim.close();
});

describe('EslClient', () => {
  it('answers requests in order, whatever the kind of their replies', async () => {
    const client = await EslClient.connect(sim.eslPort, { events: ['CHANNEL_PARK'] });
    const replies = await Promise.all([
      client.api('version'),
      client.command('filter Event-Name CHANNEL_PARK'),
      client.api('no_such_command'),
      client.command('filter delete Event-Name CHANNEL_PARK'),
      client.api('status'),
    ]);
    expect(replies).toEqual([
      expect.stringMatching(/^FreeSWITCH Version /),
      '+OK filter added. [Event-Name]=[CHANNEL_PARK]',
      '-ERR no_such_command Command not found!\n',
      '+OK filter deleted. [Event-Name][CHANNEL_PARK]',
      expect.stringMatching(/^UP /),
    ]);
    client.close();
  });

  it('finds events by key, arrived before the wait or after it; records none if told', async () => {
    const client = await EslClient.connect(sim.eslPort, {
      events: ['CHANNEL_PARK', 'CHANNEL_ANSWER', 'CHANNEL_EXECUTE_COMPLETE'],
      record: false,
    });
    const { json } = await control(sim, 'POST', '/sim/calls', { to: '100', from: '200' });
    const uuid = json.uuid as string;
    expect((await client.once(`CHANNEL_PARK:${uuid}`))['Unique-ID']).toBe(uuid);

    const completed = client.once('CHANNEL_EXECUTE_COMPLETE:app:answer-1'); // waits first
    expect(await client.execute(uuid, 'answer', '', 'answer-1', true)).toBe('+OK');
    expect((await completed).Application).toBe('answer');
    // CHANNEL_ANSWER came before the EXECUTE_COMPLETE: it was kept for whoever asks.
    expect((await client.once(`CHANNEL_ANSWER:${uuid}`))['Answer-State']).toBe('answered');
    // ... once: it is gone now, and a wait that sees nothing rejects.
    await expect(client.once(`CHANNEL_ANSWER:${uuid}`, 50)).rejects.toThrow(
      `no CHANNEL_ANSWER:${uuid} within 50 ms`,
    );
    expect(client.events).toEqual([]);
    expect(client.sequence(uuid)).toEqual([]);
    await client.api(`uuid_kill ${uuid}`);
    client.close();
  });

  it('decodes plain events as json ones: URL-encoded values, the body after them', async () => {
    const [json, plain] = await Promise.all([
      EslClient.connect(sim.eslPort, { events: ['BACKGROUND_JOB'] }),
      EslClient.connect(sim.eslPort, { format: 'plain', events: ['BACKGROUND_JOB'] }),
    ]);
    const body = await json.bgapi('version {a=b} &c');
    expect(body).toMatch(/^FreeSWITCH Version .*\n$/);
    const job = json.events[0]!;
    const seen = await plain.waitFor((e) => e['Job-UUID'] === job['Job-UUID']);
    expect(seen['Job-Command-Arg']).toBe('{a=b} &c');
    expect(seen['Event-Date-GMT']).toMatch(/^\w{3}, \d{2} \w{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/);
    expect(seen._body).toBe(body);
    expect(seen).toEqual(job);
    json.close();
    plain.close();
  });

  it('fails to connect on a wrong password, or where nothing listens', async () => {
    await expect(EslClient.connect(sim.eslPort, { password: 'nope' })).rejects.toThrow(
      'event socket auth: -ERR invalid',
    );
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await expect(EslClient.connect(port)).rejects.toThrow('event socket closed');
  });
});
