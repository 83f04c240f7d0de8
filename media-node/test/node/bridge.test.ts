// bridge and unbridge, end to end: two answered calls of one app, on one media node (one
// FreeSWITCH, uuid_bridge) or on two (a SIP leg between their simulators, as cross-node
// conference members have). They hear each other; unbridge parks both; either hanging up leaves
// the other up. Each session gets exactly one call.unbridged and one call.hangup, and no channel
// is left in either simulator.
import { beforeAll, describe, expect, it } from 'vitest';
import { answeredCall, type Call, type NodeOnSim } from './calls.js';
import type { Ev } from './harness.js';
import { loudest, toneLevel } from './tones.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0733440000';
const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
let away: NodeOnSim;

beforeAll(async () => {
  away = await stack.startNode();
});

/** A party: its call and the node (and simulator) it is on. */
interface Party extends Call {
  readonly on: NodeOnSim;
}

async function party(on: NodeOnSim): Promise<Party> {
  return { ...(await answeredCall(stack, tenant, did, on)), on };
}

let uids = 0;

/** `a` bridges to `b`: both call.bridged, then a's command.result. */
async function bridge(a: Party, b: Party): Promise<string> {
  const uid = `bridge-${++uids}`;
  const res = await stack.command(tenant, a.session, 'bridge', {
    session_uuid: b.session,
    command_uid: uid,
  });
  expect(res).toMatchObject({ status: 202, body: { status: 'in_progress', timeout_ms: 2000 } });
  const result = await stack.events.ofCommand(a.session, 'command.result', uid);
  expect(result).toMatchObject({
    command: 'call.bridge',
    success: true,
    peer_session_uuid: b.session,
  });
  for (const [self, peer] of [
    [a, b],
    [b, a],
  ] as const) {
    expect(await stack.events.of(self.session, 'call.bridged')).toMatchObject({
      peer_session_uuid: peer.session,
      command_uid: uid,
    });
  }
  return uid;
}

/** What `listener` hears of a tone `speaker` says from now on, at its loudest. */
async function heardBy(speaker: Party, listener: Party, hz: number): Promise<number> {
  const from = (await listener.on.control.heard(listener.uuid)).length;
  await speaker.on.control.say(speaker.uuid, hz, 400);
  await new Promise((resolve) => setTimeout(resolve, 700));
  return loudest(await listener.on.control.heard(listener.uuid), hz, from);
}

const unbridged = (session: string): Promise<Ev> => stack.events.of(session, 'call.unbridged');

/** The bridge GET /api/v1/sessions/{uuid} shows. */
async function bridgeShown(p: Party): Promise<unknown> {
  const res = await stack.api.inject({
    method: 'GET',
    url: `/api/v1/sessions/${p.session}`,
    headers: tenant.headers,
  });
  return res.json<{ bridge: unknown }>().bridge;
}

/** The simulator's channel, if it still has it. */
async function channel(p: Party): Promise<{ answer_state: string } | undefined> {
  return (await p.on.control.calls()).find((c) => c.uuid === p.uuid);
}

/**
 * Each session: one call.unbridged for each call.bridged, each after it, then one call.hangup;
 * no channel left on either simulator.
 */
async function over(...parties: Party[]): Promise<void> {
  for (const p of parties) {
    await stack.events.of(p.session, 'call.hangup');
    const names = stack.events
      .session(p.session)
      .map((e) => e.event)
      .filter((n) => /^call\.(bridged|unbridged|hangup)$/.test(n));
    const bridges = names.filter((n) => n === 'call.bridged').length;
    expect(bridges).toBeGreaterThan(0);
    expect(names, p.session).toEqual([
      ...Array.from({ length: bridges }, () => ['call.bridged', 'call.unbridged']).flat(),
      'call.hangup',
    ]);
  }
  for (const on of [stack, away]) {
    await expect.poll(async () => (await on.control.calls()).length, { timeout: 3000 }).toBe(0);
  }
}

describe.each([
  ['on one media node', () => stack as NodeOnSim],
  ['on two media nodes', () => away],
])('two calls bridged %s', (_where, peerNode) => {
  it('hear each other; unbridge parks both, each with call.unbridged (unbridged), and they no longer hear each other', async () => {
    const a = await party(stack);
    const b = await party(peerNode());
    await bridge(a, b);
    expect(await bridgeShown(a)).toEqual({ peer_session_uuid: b.session, state: 'bridged' });
    expect(await bridgeShown(b)).toEqual({ peer_session_uuid: a.session, state: 'bridged' });
    expect(await heardBy(a, b, 1000)).toBeGreaterThan(5000);
    expect(await heardBy(b, a, 600)).toBeGreaterThan(5000);

    // Bridging twice, or unbridging the peer of a bridge, is the api's to refuse; the other
    // commands run as before.
    const res = await stack.commandAfterCooldown(tenant, b.session, 'unbridge', {
      command_uid: 'unbridge',
    });
    expect(res.status).toBe(202);
    expect(await stack.events.ofCommand(b.session, 'command.result', 'unbridge')).toMatchObject({
      command: 'call.unbridge',
      success: true,
    });
    for (const [self, peer] of [
      [a, b],
      [b, a],
    ] as const) {
      expect(await unbridged(self.session)).toMatchObject({
        peer_session_uuid: peer.session,
        reason: 'unbridged',
      });
      expect((await unbridged(self.session)).duration_ms).toBeGreaterThan(1000);
      expect(await channel(self)).toMatchObject({ answer_state: 'answered' });
      expect(await stack.redis.hget(stack.keys.session(self.session), 'bridge_state')).toBeNull();
      expect(await bridgeShown(self)).toBeNull();
    }
    expect(await heardBy(a, b, 1000)).toBeLessThan(100);

    for (const p of [a, b]) await stack.command(tenant, p.session, 'hangup');
    await over(a, b);
  });

  it('the commanding call hangs up: it gets call.unbridged (hangup), the other (peer_hangup) stays up', async () => {
    const a = await party(stack);
    const b = await party(peerNode());
    await bridge(a, b);
    await stack.command(tenant, a.session, 'hangup');
    expect(await unbridged(a.session)).toMatchObject({ reason: 'hangup' });
    expect(await unbridged(b.session)).toMatchObject({ reason: 'peer_hangup' });
    await stack.events.of(a.session, 'call.hangup');
    expect(await channel(b)).toMatchObject({ answer_state: 'answered' });
    expect(stack.events.has(b.session, 'call.hangup')).toBe(false);
    await b.on.control.hangup(b.uuid);
    await over(a, b);
  });

  it('the other call hangs up (the far end): it gets call.unbridged (hangup), the commanding one (peer_hangup) stays up', async () => {
    const a = await party(stack);
    const b = await party(peerNode());
    await bridge(a, b);
    await b.on.control.hangup(b.uuid);
    expect(await unbridged(b.session)).toMatchObject({ reason: 'hangup' });
    expect(await unbridged(a.session)).toMatchObject({ reason: 'peer_hangup' });
    await stack.events.of(b.session, 'call.hangup');
    expect(await channel(a)).toMatchObject({ answer_state: 'answered' });
    // The survivor is the app's again: it can be bridged anew.
    const c = await party(peerNode());
    await stack.commandAfterCooldown(tenant, a.session, 'bridge', { session_uuid: c.session });
    await stack.events.of(c.session, 'call.bridged');
    await a.on.control.hangup(a.uuid);
    await stack.events.of(c.session, 'call.unbridged');
    await stack.command(tenant, c.session, 'hangup');
    await over(a, b, c);
  });
});

describe('other commands on a bridged session', () => {
  it('record/start records both parties (and plays no silence stream over the bridge)', async () => {
    const a = await party(stack);
    const b = await party(stack);
    await bridge(a, b);
    const start = await stack.command(tenant, a.session, 'record/start', { command_uid: 'rec' });
    expect(start.status).toBe(202);
    expect(await stack.events.ofCommand(a.session, 'command.result', 'rec')).toMatchObject({
      success: true,
    });
    await a.on.control.say(a.uuid, 1000, 300);
    await b.on.control.say(b.uuid, 600, 300);
    await new Promise((resolve) => setTimeout(resolve, 800));
    // Both still hear each other: no playback runs on top of the bridge.
    expect(await heardBy(b, a, 600)).toBeGreaterThan(5000);
    await stack.commandAfterCooldown(tenant, a.session, 'record/stop');
    const completed = await stack.events.of(a.session, 'recording.completed');
    const res = await stack.api.inject({
      method: 'GET',
      url: new URL(String(completed.recording_url)).pathname,
      headers: tenant.headers,
    });
    expect(res.statusCode).toBe(200);
    const wav = res.rawPayload;
    const samples = new Int16Array((wav.length - 44) >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(44 + i * 2);
    expect(loudest(samples, 1000)).toBeGreaterThan(5000);
    expect(loudest(samples, 600)).toBeGreaterThan(5000);
    expect(toneLevel(samples, 440)).toBeLessThan(500);
    for (const p of [a, b]) await stack.command(tenant, p.session, 'hangup');
    await over(a, b);
  });
});
