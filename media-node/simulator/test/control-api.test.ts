// The control API over real HTTP, observed through the event socket.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import type { Simulator } from '../src/index.js';
import { EslClient, control, startMediaServer, startTestSimulator } from './helpers.js';

let sim: Simulator;
let client: EslClient;
let media: Awaited<ReturnType<typeof startMediaServer>>;

beforeAll(async () => {
  sim = await startTestSimulator();
  media = await startMediaServer();
  client = await EslClient.connect(sim.eslPort);
});

afterAll(async () => {
  client.close();
  await media.close();
  await sim.close();
});

describe('inbound calls', () => {
  it('POST /sim/calls parks an unanswered inbound channel carrying voicegw_app_id', async () => {
    const res = await control(sim, 'POST', '/sim/calls', {
      to: '+15550001',
      from: '+15550002',
      app_id: 'app-1',
    });
    expect(res.status).toBe(201);
    const uuid = res.json.uuid as string;
    const park = await client.waitEvent('CHANNEL_PARK', uuid);
    expect(park['Call-Direction']).toBe('inbound');
    expect(park['Answer-State']).toBe('ringing');
    expect(park['Caller-Caller-ID-Number']).toBe('+15550002');
    expect(park['Caller-Destination-Number']).toBe('+15550001');
    expect(park.variable_voicegw_app_id).toBe('app-1');
    expect(client.sequence(uuid)).toEqual(['CHANNEL_CREATE', 'CHANNEL_EXECUTE', 'CHANNEL_PARK']);
    const list = await control(sim, 'GET', '/sim/calls');
    expect(list.json.calls).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ uuid, app_id: 'app-1', answer_state: 'ringing' }),
      ]),
    );
  });

  it('the far end hangs up with the given cause, in FreeSWITCH order', async () => {
    const { json } = await control(sim, 'POST', '/sim/calls', { to: '100', from: '200' });
    const uuid = json.uuid as string;
    await client.waitEvent('CHANNEL_PARK', uuid);
    expect(await client.api(`uuid_answer ${uuid}`)).toBe('+OK\n');
    await client.waitEvent('CHANNEL_ANSWER', uuid);
    const from = client.events.length;
    const res = await control(sim, 'POST', `/sim/calls/${uuid}/hangup`, { cause: 'USER_BUSY' });
    expect(res).toEqual({ status: 202, json: { uuid, cause: 'USER_BUSY' } });
    const done = await client.waitEvent('CHANNEL_HANGUP_COMPLETE', uuid);
    expect(done.variable_hangup_cause).toBe('USER_BUSY');
    expect(done.variable_hangup_cause_q850).toBe('17');
    expect(Number(done.variable_billsec)).toBeGreaterThanOrEqual(0);
    await client.waitEvent('CHANNEL_DESTROY', uuid);
    expect(client.sequence(uuid, from)).toEqual([
      'CHANNEL_HANGUP',
      'CHANNEL_UNPARK',
      'CHANNEL_EXECUTE_COMPLETE',
      'CHANNEL_HANGUP_COMPLETE',
      'CHANNEL_DESTROY',
    ]);
  });

  it('rejects bad bodies and unknown calls with clear JSON errors', async () => {
    const bad = await control(sim, 'POST', '/sim/calls', { to: '' });
    expect(bad.status).toBe(400);
    expect(bad.json.error).toBe('invalid_request');
    const digits = await control(sim, 'POST', `/sim/calls/${randomUUID()}/dtmf`, { digits: '12' });
    expect(digits).toEqual({
      status: 404,
      json: { error: 'call_not_found', message: 'No such call' },
    });
    const badDigits = await control(sim, 'POST', `/sim/calls/${randomUUID()}/dtmf`, {
      digits: 'xyz',
    });
    expect(badDigits.status).toBe(400);
    const behavior = await control(sim, 'PUT', '/sim/numbers/123', { behavior: 'maybe' });
    expect(behavior.status).toBe(400);
    const cause = await control(sim, 'POST', '/sim/calls', { to: '1', from: '2' });
    const hang = await control(sim, 'POST', `/sim/calls/${cause.json.uuid as string}/hangup`, {
      cause: 'NOPE',
    });
    expect(hang.status).toBe(400);
  });
});

describe('DTMF and play_and_get_digits', () => {
  async function answeredInbound(): Promise<string> {
    const { json } = await control(sim, 'POST', '/sim/calls', { to: '300', from: '400' });
    const uuid = json.uuid as string;
    await client.waitEvent('CHANNEL_PARK', uuid);
    await client.api(`uuid_answer ${uuid}`);
    return uuid;
  }

  async function pagd(uuid: string, arg: string, press?: string): Promise<void> {
    const app = randomUUID();
    await client.execute(uuid, 'play_and_get_digits', arg, app);
    if (press) {
      await client.waitEvent('PLAYBACK_START', uuid);
      await control(sim, 'POST', `/sim/calls/${uuid}/dtmf`, { digits: press });
    }
    await client.waitEvent('CHANNEL_EXECUTE_COMPLETE', uuid, (e) => e['Application-UUID'] === app);
  }

  it('digits with a terminator: success, digits without terminator, barge-in', async () => {
    const uuid = await answeredInbound();
    await pagd(
      uuid,
      `1 4 1 3000 # ${media.base}/tone3s.wav silence_stream://100 in \\d+ 2000`,
      '42#',
    );
    expect(await client.api(`uuid_getvar ${uuid} in`)).toBe('42');
    expect(await client.api(`uuid_getvar ${uuid} read_result`)).toBe('success');
    expect(await client.api(`uuid_getvar ${uuid} read_terminator_used`)).toBe('#');
    const dtmf = client.events.filter((e) => e['Unique-ID'] === uuid && e['Event-Name'] === 'DTMF');
    expect(dtmf.map((e) => e['DTMF-Digit'])).toEqual(['4', '2', '#']);
    expect(dtmf[0]!['DTMF-Source']).toBe('RTP');
    expect(dtmf[0]!['DTMF-Duration']).toBe('2000');
    const stop = await client.waitEvent('PLAYBACK_STOP', uuid);
    expect(stop['Playback-Status']).toBe('break');
  });

  it('no input: timeout, invalid prompt played, failure and the variable unset', async () => {
    const uuid = await answeredInbound();
    await pagd(uuid, `1 4 1 300 # silence_stream://100 silence_stream://50 none_var \\d+`);
    expect(await client.api(`uuid_getvar ${uuid} none_var`)).toBe('_undef_');
    expect(await client.api(`uuid_getvar ${uuid} read_result`)).toBe('failure');
    const files = client.events
      .filter((e) => e['Unique-ID'] === uuid && e['Event-Name'] === 'PLAYBACK_START')
      .map((e) => e['Playback-File-Path']);
    expect(files).toEqual(['silence_stream://100', 'silence_stream://50']);
  });

  it('invalid entry is kept in <var>_invalid; read_result stays that of the completed read', async () => {
    const uuid = await answeredInbound();
    await pagd(
      uuid,
      `2 4 1 2000 # silence_stream://2000 silence_stream://50 v ^1\\d+$ 1000`,
      '55#',
    );
    expect(await client.api(`uuid_getvar ${uuid} v_invalid`)).toBe('55');
    // switch_play_and_get_digits only unsets <var> on a regexp mismatch.
    expect(await client.api(`uuid_getvar ${uuid} read_result`)).toBe('success');
    expect(await client.api(`uuid_getvar ${uuid} v`)).toBe('_undef_');
  });

  it('max digits ends input without a terminator', async () => {
    const uuid = await answeredInbound();
    await pagd(uuid, `1 2 1 2000 # silence_stream://2000 silence_stream://50 m \\d+ 1000`, '789');
    expect(await client.api(`uuid_getvar ${uuid} m`)).toBe('78');
    expect(await client.api(`uuid_getvar ${uuid} read_result`)).toBe('success');
  });
});
