// Bridged calls under faults, on real processes: the media node of one party killed (kill -9)
// while its FreeSWITCH keeps the call up, and FreeSWITCH killed and restarted with a bridge up,
// on one node and across two. Each session still gets exactly one call.unbridged, before its one
// call.hangup; a party whose call survives stays up and is the app's again.
import { randomUUID } from 'node:crypto';
import { freePort } from '@voicegw/tools';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { afterAll, describe, expect, it } from 'vitest';
import { fastSweeper, mobile, SimControl, type Ev } from './harness.js';
import { startNodeProcess, startSimulatorProcess, type LoggedProcess } from './processes.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0736690000';
// The in-process node is also the survivor whose sweeper answers for a killed node.
const stack = useStack({ nodeEnv: fastSweeper(1500) });
const tenant = useTenant(stack, { dids: [did] });
const processes: LoggedProcess[] = [];
const sims: Simulator[] = [];

afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  await Promise.allSettled(sims.map((s) => s.close()));
});

/** A media node process on the test's Redis, driving the FreeSWITCH at `eslPort`. */
async function nodeProcess(eslPort: number, sipPort: number, env: Record<string, string> = {}) {
  const node = await startNodeProcess({
    REDIS_PREFIX: stack.redisPrefix,
    NODE_NAME: `bridge-faults-${randomUUID()}`,
    FS_ESL_PORT: String(eslPort),
    FS_SIP_ADDRESS: `127.0.0.1:${sipPort}`,
    ...env,
  });
  processes.push(node);
  const prefix = String((await node.waitFor((l) => l.msg === 'media node ready')).node);
  return { node, prefix };
}

interface Party {
  readonly uuid: string;
  readonly session: string;
  readonly control: SimControl;
}

/** An answered inbound call on `control`'s simulator, owned by the node of `prefix`. */
async function callOn(control: SimControl, prefix: string): Promise<Party> {
  const uuid = await control.call(did, mobile());
  const session = `${prefix}-${uuid}`;
  await stack.events.of(session, 'call.new', 10_000);
  await stack.command(tenant, session, 'answer');
  await stack.events.of(session, 'call.answered', 10_000);
  return { uuid, session, control };
}

async function bridge(a: Party, b: Party): Promise<void> {
  const res = await stack.command(tenant, a.session, 'bridge', {
    session_uuid: b.session,
    command_uid: 'bridge',
  });
  expect(res.status).toBe(202);
  expect(await stack.events.ofCommand(a.session, 'command.result', 'bridge', 10_000)).toMatchObject(
    { success: true },
  );
  for (const p of [a, b]) await stack.events.of(p.session, 'call.bridged', 10_000);
}

/** The session's bridge and hangup events, in order. */
const ending = (session: string): string[] =>
  stack.events
    .session(session)
    .map((e) => e.event)
    .filter((n) => /^call\.(bridged|unbridged|hangup)$/.test(n));

const unbridged = (session: string): Ev | undefined =>
  stack.events.session(session).find((e) => e.event === 'call.unbridged');

async function answeredOn(p: Party): Promise<boolean> {
  return (await p.control.calls()).some((c) => c.uuid === p.uuid && c.answer_state === 'answered');
}

describe('the media node of one party killed (kill -9) while bridged, its FreeSWITCH still up', () => {
  it.each([
    ['the other party', 'bridged to'],
    ['the commanding party', 'bridging'],
  ] as const)(
    'of %s: the sweeper gives its call.unbridged (hangup), then call.hangup; the survivor gets call.unbridged (peer_hangup) and stays up',
    async (_which, role) => {
      const sim = await startSimulator({ eslPort: 0, httpPort: 0, sipPort: 0 });
      sims.push(sim);
      const { node, prefix } = await nodeProcess(sim.eslPort, sim.sipPort ?? 0, {
        ...fastSweeper(1500),
        HEARTBEAT_INTERVAL_MS: '300',
        HEARTBEAT_TTL_MS: '3000',
      });
      const doomed = await callOn(new SimControl(sim.controlUrl), prefix);
      const survivor = await callOn(stack.control, stack.node.prefix);
      if (role === 'bridged to') await bridge(survivor, doomed);
      else await bridge(doomed, survivor);

      await node.kill();
      const hangup = await stack.events.of(doomed.session, 'call.hangup', 20_000);
      expect(hangup).toMatchObject({ hangup_cause: 'failed', duration_seconds: 0 });
      expect(unbridged(doomed.session)).toMatchObject({
        reason: 'hangup',
        peer_session_uuid: survivor.session,
        duration_ms: 0,
      });
      expect(ending(doomed.session)).toEqual(['call.bridged', 'call.unbridged', 'call.hangup']);

      // The survivor's node sees its peer ended, hangs its leg up: its call parks.
      expect(await stack.events.of(survivor.session, 'call.unbridged', 5000)).toMatchObject({
        reason: 'peer_hangup',
        peer_session_uuid: doomed.session,
      });
      expect(await answeredOn(survivor)).toBe(true);
      expect(
        await stack.redis.hget(stack.keys.session(survivor.session), 'bridge_state'),
      ).toBeNull();
      await stack.command(tenant, survivor.session, 'hangup');
      await stack.events.of(survivor.session, 'call.hangup');
      expect(ending(survivor.session)).toEqual(['call.bridged', 'call.unbridged', 'call.hangup']);
      await expect.poll(async () => (await stack.control.calls()).length).toBe(0);
    },
    90_000,
  );
});

describe('FreeSWITCH killed (kill -9) and restarted with a bridge up', () => {
  it('both parties on its node: each gets call.unbridged (hangup), then its one call.hangup, from the node', async () => {
    const eslPort = await freePort();
    const first = await startSimulatorProcess(eslPort);
    processes.push(first.process);
    const { node, prefix } = await nodeProcess(eslPort, first.sipPort);
    const a = await callOn(first.control, prefix);
    const b = await callOn(first.control, prefix);
    await bridge(a, b);

    await first.process.kill();
    await node.waitFor((l) => l.msg === 'FreeSWITCH connection lost; reconnecting');
    const second = await startSimulatorProcess(eslPort);
    processes.push(second.process);
    for (const p of [a, b]) {
      expect(await stack.events.of(p.session, 'call.hangup', 15_000)).toMatchObject({
        hangup_cause: 'failed',
      });
      expect(unbridged(p.session)).toMatchObject({ reason: 'hangup' });
      expect(ending(p.session)).toEqual(['call.bridged', 'call.unbridged', 'call.hangup']);
    }
  }, 90_000);

  it("a party on another node: its call is cut from the bridge (error) and stays up; the restarted FreeSWITCH's party ends (hangup)", async () => {
    const eslPort = await freePort();
    const sipPort = await freePort();
    const first = await startSimulatorProcess(eslPort, sipPort);
    processes.push(first.process);
    const { prefix } = await nodeProcess(eslPort, sipPort);
    const lost = await callOn(first.control, prefix);
    const kept = await callOn(stack.control, stack.node.prefix);
    await bridge(kept, lost);

    await first.process.kill();
    // The SIP leg between the two FreeSWITCHes drops (RTP stops): the kept call parks.
    expect(await stack.events.of(kept.session, 'call.unbridged', 10_000)).toMatchObject({
      reason: 'error',
      peer_session_uuid: lost.session,
    });
    expect(await answeredOn(kept)).toBe(true);
    const second = await startSimulatorProcess(eslPort, sipPort);
    processes.push(second.process);
    expect(await stack.events.of(lost.session, 'call.hangup', 15_000)).toMatchObject({
      hangup_cause: 'failed',
    });
    expect(unbridged(lost.session)).toMatchObject({ reason: 'hangup' });
    expect(ending(lost.session)).toEqual(['call.bridged', 'call.unbridged', 'call.hangup']);

    await stack.command(tenant, kept.session, 'hangup');
    await stack.events.of(kept.session, 'call.hangup');
    expect(ending(kept.session)).toEqual(['call.bridged', 'call.unbridged', 'call.hangup']);
    await expect.poll(async () => (await stack.control.calls()).length).toBe(0);
  }, 90_000);
});
