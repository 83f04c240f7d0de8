// A media node restarted (SIGINT: it closes at once, same NODE_NAME) with a bridge up, its
// FreeSWITCH still up: the node that comes back adopts both calls and takes their bridge up
// again, so that the bridge's end still gives each party its one call.unbridged. (No fast
// sweeper here: the calls must not be taken for orphans while the node restarts.)
import { randomUUID } from 'node:crypto';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { afterAll, describe, expect, it } from 'vitest';
import { mobile, SimControl } from './harness.js';
import { startNodeProcess, type LoggedProcess } from './processes.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0736700000';
const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
const processes: LoggedProcess[] = [];
let sim: Simulator | undefined;

afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  await sim?.close();
});

async function nodeProcess(name: string, eslPort: number) {
  const node = await startNodeProcess({
    REDIS_PREFIX: stack.redisPrefix,
    NODE_NAME: name,
    FS_ESL_PORT: String(eslPort),
  });
  processes.push(node);
  const prefix = String((await node.waitFor((l) => l.msg === 'media node ready')).node);
  return { node, prefix };
}

const ending = (session: string): string[] =>
  stack.events
    .session(session)
    .map((e) => e.event)
    .filter((n) => /^call\.(bridged|unbridged|hangup)$/.test(n));

describe('a media node restarted (SIGINT: closes at once) with a bridge up', () => {
  it('the node that comes back takes the bridge up again: a hangup then gives each party its one call.unbridged', async () => {
    sim = await startSimulator({ eslPort: 0, httpPort: 0 });
    const control = new SimControl(sim.controlUrl);
    const name = `bridge-restart-${randomUUID()}`;
    const first = await nodeProcess(name, sim.eslPort);
    const calls = [];
    for (let i = 0; i < 2; i++) {
      const uuid = await control.call(did, mobile());
      const session = `${first.prefix}-${uuid}`;
      await stack.events.of(session, 'call.new', 10_000);
      await stack.command(tenant, session, 'answer');
      await stack.events.of(session, 'call.answered', 10_000);
      calls.push({ uuid, session });
    }
    const [a, b] = calls as [(typeof calls)[0], (typeof calls)[0]];
    await stack.command(tenant, a.session, 'bridge', { session_uuid: b.session });
    await stack.events.of(b.session, 'call.bridged', 10_000);
    await stack.events.of(a.session, 'call.bridged', 10_000);

    await first.node.stop();
    const second = await nodeProcess(name, sim.eslPort);
    expect(second.prefix).toBe(first.prefix);
    expect(
      await second.node.waitFor((l) => l.msg === 'resynchronised with FreeSWITCH'),
    ).toMatchObject({ adopted: 2, vanished: 0 });

    await control.hangup(b.uuid);
    expect(await stack.events.of(b.session, 'call.hangup', 10_000)).toMatchObject({
      hangup_cause: 'completed',
    });
    expect(await stack.events.of(b.session, 'call.unbridged')).toMatchObject({ reason: 'hangup' });
    expect(await stack.events.of(a.session, 'call.unbridged', 5000)).toMatchObject({
      reason: 'peer_hangup',
    });
    expect((await control.calls()).map((c) => c.uuid)).toEqual([a.uuid]);
    await stack.command(tenant, a.session, 'hangup');
    await stack.events.of(a.session, 'call.hangup');
    for (const p of [a, b])
      expect(ending(p.session)).toEqual(['call.bridged', 'call.unbridged', 'call.hangup']);
  }, 90_000);
});
