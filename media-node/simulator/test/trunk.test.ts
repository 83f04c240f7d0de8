// The SIP trunk between two simulators: an originate to sofia/<profile>/<user>@<host>:<port>
// reaches the simulator listening there as an inbound call (trace i), answer, hangup causes and
// DTMF cross over, and uuid_bridge joins a local call to such a leg.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startSimulator, type Simulator } from '../src/index.js';
import { EslClient, control, type Ev } from './helpers.js';

let here: Simulator;
let there: Simulator;
let local: EslClient;
let far: EslClient;

beforeAll(async () => {
  [here, there] = await Promise.all([
    startSimulator({ eslPort: 0, httpPort: 0, sipPort: 0 }),
    startSimulator({ eslPort: 0, httpPort: 0, sipPort: 0, hostname: 'sim-2' }),
  ]);
  [local, far] = await Promise.all([
    EslClient.connect(here.eslPort),
    EslClient.connect(there.eslPort),
  ]);
});

afterAll(async () => {
  local.close();
  far.close();
  await Promise.all([here.close(), there.close()]);
});

/** Starts an originate to the far simulator; resolves with the far side's parked leg. */
async function call(
  user: string,
  vars = '',
): Promise<{ uuid: string; result: Promise<string>; farLeg: Ev }> {
  const uuid = randomUUID();
  const result = local.bgapi(
    `originate {origination_uuid=${uuid},origination_caller_id_number=1000${vars}}` +
      `sofia/external/${user}@127.0.0.1:${there.sipPort} &park()`,
  );
  const farLeg = await far.waitFor(
    (e) => e['Event-Name'] === 'CHANNEL_PARK' && e['Caller-Destination-Number'] === user,
  );
  return { uuid, result, farLeg };
}

const hangupOf = (client: EslClient, uuid: string) =>
  client.waitEvent('CHANNEL_HANGUP_COMPLETE', uuid).then((e) => e['Hangup-Cause']);

describe('SIP trunk between simulators', () => {
  it('the far simulator gets an inbound call, parked, with the dialled user and the X- headers', async () => {
    const user = `conf-${randomUUID().slice(0, 8)}`;
    const { uuid, result, farLeg } = await call(user, ',sip_h_X-Voicegw-Session=abc-123');
    const farUuid = farLeg['Unique-ID'] ?? '';
    expect(farLeg).toMatchObject({
      'Call-Direction': 'inbound',
      'Channel-Name': 'sofia/external/1000@127.0.0.1',
      'Caller-Caller-ID-Number': '1000',
      'Answer-State': 'ringing',
      'FreeSWITCH-Hostname': 'sim-2',
      'variable_sip_h_X-Voicegw-Session': 'abc-123',
    });
    // Trace i, the inbound leg: created, routed, executing its dialplan (here: park).
    expect(far.sequence(farUuid, 0, ['API'])).toEqual([
      'CHANNEL_STATE',
      'CHANNEL_STATE',
      'CHANNEL_CREATE',
      'CHANNEL_STATE',
      'CHANNEL_STATE',
      'CHANNEL_EXECUTE',
      'CHANNEL_PARK',
    ]);

    expect(await far.api(`uuid_answer ${farUuid}`)).toBe('+OK\n');
    expect(await result).toBe(`+OK ${uuid}\n`);
    await local.waitEvent('CHANNEL_PARK', uuid);
    // Trace i, the outbound leg, up to its park.
    expect(local.sequence(uuid)).toEqual([
      'CHANNEL_OUTGOING',
      'CHANNEL_CREATE',
      'CHANNEL_ORIGINATE',
      'CHANNEL_ANSWER',
      'CHANNEL_EXECUTE',
      'CHANNEL_PARK',
    ]);

    expect(await local.api(`uuid_send_dtmf ${uuid} 5`)).toBe(`+OK ${uuid} sent DTMF 5.\n`);
    expect(await far.waitEvent('DTMF', farUuid)).toMatchObject({
      'DTMF-Digit': '5',
      'DTMF-Source': 'RTP',
    });

    // uuid_kill on the calling side: BYE, the far leg clears normally (trace i1).
    const farCause = hangupOf(far, farUuid);
    expect(await local.api(`uuid_kill ${uuid}`)).toBe('+OK\n');
    expect(await hangupOf(local, uuid)).toBe('NORMAL_CLEARING');
    expect(await farCause).toBe('NORMAL_CLEARING');
  });

  it('the far side hanging up ends the calling leg with its cause (trace i2)', async () => {
    const { uuid, result, farLeg } = await call(`busy-${randomUUID().slice(0, 8)}`);
    const farUuid = farLeg['Unique-ID'] ?? '';
    await far.api(`uuid_answer ${farUuid}`);
    expect(await result).toBe(`+OK ${uuid}\n`);
    await far.api(`uuid_kill ${farUuid} USER_BUSY`);
    expect(await hangupOf(local, uuid)).toBe('USER_BUSY');
    await local.waitEvent('CHANNEL_DESTROY', uuid);
    expect(local.sequence(uuid).slice(-4)).toEqual([
      'CHANNEL_UNPARK',
      'CHANNEL_EXECUTE_COMPLETE',
      'CHANNEL_HANGUP_COMPLETE',
      'CHANNEL_DESTROY',
    ]);
  });

  it('a refusal before answer fails the originate with the far side cause', async () => {
    const { uuid, result, farLeg } = await call(`rej-${randomUUID().slice(0, 8)}`);
    await far.api(`uuid_kill ${farLeg['Unique-ID']} CALL_REJECTED`);
    expect(await result).toBe('-ERR CALL_REJECTED\n');
    expect(await hangupOf(local, uuid)).toBe('CALL_REJECTED');
  });

  it('an originate that gives up before answer cancels the far leg', async () => {
    const uuid = randomUUID();
    const user = `slow-${randomUUID().slice(0, 8)}`;
    const result = local.bgapi(
      `originate {origination_uuid=${uuid},originate_timeout=1}sofia/external/${user}@127.0.0.1:${there.sipPort} &park()`,
    );
    const farLeg = await far.waitFor(
      (e) => e['Event-Name'] === 'CHANNEL_PARK' && e['Caller-Destination-Number'] === user,
    );
    expect(await result).toBe('-ERR NO_ANSWER\n');
    expect(await hangupOf(far, farLeg['Unique-ID'] ?? '')).toBe('ORIGINATOR_CANCEL');
  });

  it('nothing listening at host:port: NORMAL_TEMPORARY_FAILURE, as a SIP 503', async () => {
    const uuid = randomUUID();
    const closed = await startSimulator({ eslPort: 0, httpPort: 0, sipPort: 0 });
    const port = closed.sipPort;
    await closed.close();
    expect(
      await local.bgapi(
        `originate {origination_uuid=${uuid}}sofia/external/x@127.0.0.1:${port} &park()`,
      ),
    ).toBe('-ERR NORMAL_TEMPORARY_FAILURE\n');
  });
});

describe('uuid_bridge', () => {
  /** An answered inbound call on this simulator and an answered trunk leg to the far one. */
  async function pair(): Promise<{ caller: string; leg: string; farLeg: string }> {
    const placed = await control(here, 'POST', '/sim/calls', {
      to: '0730000000',
      from: '0501111111',
    });
    const caller = placed.json.uuid as string;
    await local.waitEvent('CHANNEL_PARK', caller);
    await local.api(`uuid_answer ${caller}`);
    const { uuid, result, farLeg } = await call(`leg-${randomUUID().slice(0, 8)}`);
    const farUuid = farLeg['Unique-ID'] ?? '';
    await far.api(`uuid_answer ${farUuid}`);
    expect(await result).toBe(`+OK ${uuid}\n`);
    await local.waitEvent('CHANNEL_PARK', uuid);
    return { caller, leg: uuid, farLeg: farUuid };
  }

  it('bridges a call to a trunk leg; DTMF crosses; the leg going parks the call (park_after_bridge)', async () => {
    const { caller, leg, farLeg } = await pair();
    expect(await local.api(`uuid_setvar ${caller} park_after_bridge true`)).toBe('+OK\n');
    const from = local.events.length;
    expect(await local.api(`uuid_bridge ${caller} ${leg}`)).toBe(`+OK ${leg}\n`);
    const bridged = await local.waitEvent('CHANNEL_BRIDGE', caller);
    expect(bridged).toMatchObject({ 'Bridge-A-Unique-ID': caller, 'Bridge-B-Unique-ID': leg });
    expect(local.sequence(caller, from)).toEqual([
      'CHANNEL_UNPARK',
      'CHANNEL_EXECUTE_COMPLETE',
      'CHANNEL_EXECUTE',
      'CHANNEL_BRIDGE',
    ]);
    expect(await local.api(`uuid_getvar ${caller} bridge_to`)).toBe(leg);

    await control(here, 'POST', `/sim/calls/${caller}/dtmf`, { digits: '7' });
    expect(await far.waitEvent('DTMF', farLeg)).toMatchObject({ 'DTMF-Digit': '7' });

    await far.api(`uuid_kill ${farLeg}`);
    expect(await hangupOf(local, leg)).toBe('NORMAL_CLEARING');
    await local.waitEvent('CHANNEL_UNBRIDGE', caller);
    await local.waitEvent(
      'CHANNEL_PARK',
      caller,
      (e) => Number(e['Event-Sequence']) > Number(bridged['Event-Sequence']),
    );
    expect(await local.api(`uuid_getvar ${caller} bridge_to`)).toBe('_undef_');
    const calls = await control(here, 'GET', '/sim/calls');
    expect(calls.json.calls).toEqual(
      expect.arrayContaining([expect.objectContaining({ uuid: caller, applications: ['park'] })]),
    );
    await local.api(`uuid_kill ${caller}`);
  });

  it('the bridged call hanging up takes the leg and the far side down with its cause', async () => {
    const { caller, leg, farLeg } = await pair();
    await local.api(`uuid_bridge ${caller} ${leg}`);
    await local.waitEvent('CHANNEL_BRIDGE', caller);
    const farCause = hangupOf(far, farLeg);
    await control(here, 'POST', `/sim/calls/${caller}/hangup`, { cause: 'NORMAL_CLEARING' });
    expect(await hangupOf(local, leg)).toBe('NORMAL_CLEARING');
    expect(await farCause).toBe('NORMAL_CLEARING');
  });

  it('refuses unknown or unanswered channels', async () => {
    expect(await local.api(`uuid_bridge ${randomUUID()} ${randomUUID()}`)).toBe(
      '-ERR Invalid uuid\n',
    );
    const placed = await control(here, 'POST', '/sim/calls', {
      to: '0730000001',
      from: '0501111112',
    });
    const other = await control(here, 'POST', '/sim/calls', {
      to: '0730000002',
      from: '0501111113',
    });
    const [a, b] = [placed.json.uuid as string, other.json.uuid as string];
    expect(await local.api(`uuid_bridge ${a} ${b}`)).toBe('-ERR Invalid uuid\n');
    expect(await local.api('uuid_bridge')).toBe('-USAGE: <uuid> <other_uuid>\n');
  });
});
