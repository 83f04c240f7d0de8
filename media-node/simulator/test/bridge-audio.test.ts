// What a bridge carries: two calls bridged with uuid_bridge hear each other, on one simulator and
// across two joined by their SIP trunk (a call bridged to a trunk leg on each side); a recording
// of a bridged call holds both parties; uuid_park separates them, each parked; a tone_stream
// (a ringback) is heard by the call it plays to.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../src/index.js';
import { EslClient, control } from './helpers.js';
import { levelAt, wavSamples } from './stream-peer.js';

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

/** An inbound call on `sim`, parked and answered, with park_after_bridge set. */
async function answered(sim: Simulator, client: EslClient): Promise<string> {
  const placed = await control(sim, 'POST', '/sim/calls', { to: '0730000000', from: '0501111111' });
  const uuid = placed.json.uuid as string;
  await client.waitEvent('CHANNEL_PARK', uuid);
  await client.api(`uuid_answer ${uuid}`);
  await client.api(`uuid_setvar ${uuid} park_after_bridge true`);
  return uuid;
}

const say = (sim: Simulator, uuid: string, hz: number, ms: number) =>
  control(sim, 'POST', `/sim/calls/${uuid}/say`, { tone: { hz, ms } });

async function heard(sim: Simulator, uuid: string): Promise<Int16Array> {
  const res = await fetch(`${sim.controlUrl}/sim/calls/${uuid}/heard.wav`);
  return wavSamples(Buffer.from(await res.arrayBuffer()));
}

/** The level of `hz` in the call's audio over [fromMs, fromMs + ms) since the call began. */
const levelIn = (samples: Int16Array, hz: number, fromMs: number, ms: number) =>
  levelAt(samples.subarray(fromMs * 8, (fromMs + ms) * 8), hz, 8000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a bridge on one simulator', () => {
  it('each call hears what the other says while bridged, and nothing of it once uuid_park separates them', async () => {
    const [a, b] = [await answered(here, local), await answered(here, local)];
    expect(await local.api(`uuid_bridge ${a} ${b}`)).toBe(`+OK ${b}\n`);
    const bridged = await local.waitEvent('CHANNEL_BRIDGE', a);
    expect(bridged).toMatchObject({ 'Bridge-A-Unique-ID': a, 'Bridge-B-Unique-ID': b });

    const fromA = await say(here, a, 1000, 400);
    const fromB = await say(here, b, 600, 400);
    await pause(600);
    const [atA, atB] = [await heard(here, a), await heard(here, b)];
    // B heard A's 1 kHz when A said it (both calls' clocks are the simulator's), not its own.
    const aAt = fromA.json.at_ms as number;
    const bAt = fromB.json.at_ms as number;
    const aOnB = aAt + (await startOffset(b, a));
    expect(levelIn(atB, 1000, aOnB + 50, 300)).toBeGreaterThan(6000);
    expect(levelIn(atB, 600, aOnB + 50, 300)).toBeLessThan(500);
    const bOnA = bAt - (await startOffset(b, a));
    expect(levelIn(atA, 600, bOnA + 50, 300)).toBeGreaterThan(6000);
    expect(levelIn(atA, 1000, bOnA + 50, 300)).toBeLessThan(500);

    const from = local.events.length;
    expect(await local.api(`uuid_park ${a}`)).toBe('+OK\n');
    await local.waitEvent('CHANNEL_UNBRIDGE', a);
    await Promise.all([
      local.waitFor(
        (e) =>
          e['Event-Name'] === 'CHANNEL_PARK' &&
          e['Unique-ID'] === a &&
          local.events.indexOf(e) >= from,
      ),
      local.waitFor(
        (e) =>
          e['Event-Name'] === 'CHANNEL_PARK' &&
          e['Unique-ID'] === b &&
          local.events.indexOf(e) >= from,
      ),
    ]);
    const calls = await control(here, 'GET', '/sim/calls');
    for (const uuid of [a, b]) {
      expect(calls.json.calls).toContainEqual(
        expect.objectContaining({ uuid, answer_state: 'answered', applications: ['park'] }),
      );
    }
    const later = await say(here, a, 1000, 300);
    await pause(500);
    const after = await heard(here, b);
    expect(
      levelIn(after, 1000, (later.json.at_ms as number) + (await startOffset(b, a)), 300),
    ).toBe(0);
    await local.api(`uuid_kill ${a}`);
    await local.api(`uuid_kill ${b}`);
  });

  it('a recording of a bridged call holds both parties', async () => {
    const [a, b] = [await answered(here, local), await answered(here, local)];
    await local.api(`uuid_bridge ${a} ${b}`);
    await local.waitEvent('CHANNEL_BRIDGE', a);
    const path = join(await mkdtemp(join(tmpdir(), 'sim-bridge-')), 'a.wav');
    expect(await local.api(`uuid_record ${a} start ${path}`)).toBe('+OK Success\n');
    await local.waitEvent('RECORD_START', a);
    await say(here, a, 1000, 300);
    await say(here, b, 600, 300);
    await pause(900);
    await local.api(`uuid_record ${a} stop ${path}`);
    await local.waitEvent('RECORD_STOP', a);
    const samples = wavSamples(await readFile(path));
    // The two says follow each other: A's 1 kHz (what A says), then B's 600 Hz (what A hears).
    expect(levelAt(samples, 1000, 8000)).toBeGreaterThan(1000);
    expect(levelAt(samples, 600, 8000)).toBeGreaterThan(1000);
    await local.api(`uuid_kill ${a}`);
    await local.api(`uuid_kill ${b}`);
  });

  it('uuid_park of an unknown channel, or without one', async () => {
    expect(await local.api(`uuid_park ${randomUUID()}`)).toBe('-ERR No Such Channel!\n');
    expect(await local.api('uuid_park')).toBe('-USAGE: <uuid>\n');
  });
});

describe('a bridge across two simulators', () => {
  it('a call on each, each bridged to its end of a trunk call, hear each other', async () => {
    const a = await answered(here, local);
    const b = await answered(there, far);
    const leg = randomUUID();
    const user = `voicegw-bridge-${randomUUID().slice(0, 8)}`;
    const placed = local.bgapi(
      `originate {origination_uuid=${leg}}sofia/external/${user}@127.0.0.1:${there.sipPort} &park()`,
    );
    const farLeg = await far.waitFor(
      (e) => e['Event-Name'] === 'CHANNEL_PARK' && e['Caller-Destination-Number'] === user,
    );
    const farUuid = farLeg['Unique-ID'] ?? '';
    await far.api(`uuid_answer ${farUuid}`);
    expect(await placed).toBe(`+OK ${leg}\n`);
    await local.api(`uuid_bridge ${a} ${leg}`);
    await far.api(`uuid_bridge ${b} ${farUuid}`);
    await Promise.all([local.waitEvent('CHANNEL_BRIDGE', a), far.waitEvent('CHANNEL_BRIDGE', b)]);

    const fromA = await say(here, a, 1000, 400);
    await pause(700);
    const onB = await heard(there, b);
    const fromB = await say(there, b, 600, 400);
    await pause(700);
    const onA = await heard(here, a);
    // Each says on its own simulator's clock; what crosses the trunk arrives within ~100 ms.
    expect(maxLevel(onB, 1000)).toBeGreaterThan(6000);
    expect(maxLevel(onA, 600)).toBeGreaterThan(6000);
    expect(maxLevel(onA, 1000)).toBeLessThan(500);
    expect([fromA.status, fromB.status]).toEqual([202, 202]);

    // The trunk leg going (the far side hangs it up) returns both calls to park.
    await far.api(`uuid_kill ${farUuid}`);
    await Promise.all([
      local.waitEvent('CHANNEL_UNBRIDGE', a),
      far.waitEvent('CHANNEL_UNBRIDGE', b),
    ]);
    await local.api(`uuid_kill ${a}`);
    await far.api(`uuid_kill ${b}`);
  });
});

describe('tone_stream', () => {
  it('a ringback played to a call is heard: its tone for `on` ms, then silence for `off` ms', async () => {
    const a = await answered(here, local);
    await local.api(`uuid_break ${a}`);
    const appUuid = randomUUID();
    await local.execute(a, 'playback', 'tone_stream://%(400,600,425);loops=-1', appUuid);
    const started = await local.waitEvent('PLAYBACK_START', a);
    await pause(2200);
    await local.api(`uuid_break ${a}`);
    await local.waitEvent('PLAYBACK_STOP', a);
    const samples = await heard(here, a);
    const first = samples.findIndex((s) => Math.abs(s) > 2000);
    expect(first).toBeGreaterThan(0);
    // Two cycles of 400 ms on, 600 ms off, from the first tone sample.
    const ms = first / 8;
    expect(levelIn(samples, 425, ms + 20, 360)).toBeGreaterThan(6000);
    expect(levelIn(samples, 425, ms + 420, 560)).toBeLessThan(100);
    expect(levelIn(samples, 425, ms + 1020, 360)).toBeGreaterThan(6000);
    expect(started['Playback-File-Path']).toBe('tone_stream://%(400,600,425);loops=-1');
    await local.api(`uuid_kill ${a}`);
  });
});

/** The highest level of `hz` over any 200 ms of `samples`. */
function maxLevel(samples: Int16Array, hz: number): number {
  let best = 0;
  for (let at = 0; at + 1600 <= samples.length; at += 400) {
    best = Math.max(best, levelAt(samples.subarray(at, at + 1600), hz, 8000));
  }
  return best;
}

/** How much later `later` began than `earlier`, in ms: the offset between their heard.wav. */
async function startOffset(later: string, earlier: string): Promise<number> {
  const audio = async (uuid: string) =>
    (await control(here, 'GET', `/sim/calls/${uuid}/audio`)).json as { began_at: string };
  return Date.parse((await audio(earlier)).began_at) - Date.parse((await audio(later)).began_at);
}
