// A media node killed with kill -9 (a real child process) while commands for its calls are
// read-but-unacknowledged and unread in its stream: another node's sweeper answers every one of
// them, once, before the sessions' call.hangup, at a real webhook receiver through the dispatcher.
import { randomUUID } from 'node:crypto';
import { startDispatcher, type Dispatcher } from '@voicegw/api';
import { NODE_LOST } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherEnv, useReceiver } from '../../../api/test/dispatcher-helpers.js';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { fastSweeper, heartbeats, mobile, SimControl } from './harness.js';
import { useAudio, useStack, useTenant } from './use-stack.js';
import { startNodeProcess, type LoggedProcess } from './processes.js';

const did = '0735551234';
const HOOK = 'victim-app';

let dispatcher: Dispatcher;
let sim: Simulator;
const processes: LoggedProcess[] = [];

// The stack's in-process node is the survivor whose sweeper answers for the dead one.
const stack = useStack({ nodeEnv: fastSweeper(1500) });

const receiver = useReceiver();
beforeAll(async () => {
  // Its own sweep keeps the defaults (5 s rounds, 15 s TTL): still observing the dead node, it
  // must not hold the sweeper lock against the survivor that found the node dead.
  dispatcher = await startDispatcher(dispatcherEnv(stack.redisPrefix));
});
afterAll(() => dispatcher.close());
const tenant = useTenant(stack, () => ({ dids: [did], webhookUrl: receiver.url(HOOK) }));
const audio = useAudio();

beforeAll(async () => {
  sim = await startSimulator({ eslPort: 0, httpPort: 0 });
});
afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  await sim.close();
});

const hooksOf = (session: string) => receiver.hooksOf(HOOK, session);

const resultsOf = (session: string, uid: string) =>
  hooksOf(session).filter((e) => e.event === 'command.result' && e.command_uid === uid);

async function victimNode(name: string): Promise<{ process: LoggedProcess; prefix: string }> {
  const victim = await startNodeProcess({
    REDIS_PREFIX: stack.redisPrefix,
    NODE_NAME: name,
    FS_ESL_PORT: String(sim.eslPort),
    // Time enough after the kill for the api to accept commands for the dead node.
    ...heartbeats(300, 3000),
  });
  processes.push(victim);
  const ready = await victim.waitFor((l) => l.msg === 'media node ready');
  return { process: victim, prefix: String(ready.node) };
}

describe('a media node killed with commands in its stream', () => {
  it('every accepted command gets one failed command.result from a sweeper, before call.hangup, and never another', async () => {
    const name = `victim-${randomUUID()}`;
    const { process: victim, prefix } = await victimNode(name);
    const control = new SimControl(sim.controlUrl);
    const stream = stack.keys.commandStream(prefix);

    const sessions: string[] = [];
    const calls: string[] = [];
    for (let i = 0; i < 3; i++) {
      const uuid = await control.call(did, mobile());
      calls.push(uuid);
      const session = `${prefix}-${uuid}`;
      await stack.events.of(session, 'call.new');
      await stack.command(tenant, session, 'answer', { command_uid: `answer-${i}` });
      await stack.events.of(session, 'call.answered');
      sessions.push(session);
    }

    // Read but unacknowledged: a playback whose audio takes 10 s to fetch holds its entry pending.
    const accepted: { session: string; uid: string }[] = [];
    for (const session of sessions) {
      const res = await stack.command(tenant, session, 'playback/start', {
        urls: [`${audio.base}/slow10000ms.wav`],
        command_uid: 'slow-playback',
      });
      expect(res.status).toBe(202);
      accepted.push({ session, uid: 'slow-playback' });
    }
    await expect
      .poll(async () => Number((await stack.redis.xpending(stream, 'media-node'))[0]))
      .toBe(sessions.length);
    await victim.kill();
    const killedAt = Date.now();

    // Unread: accepted while the dead node's heartbeat lives on.
    for (let i = 0; i < 5; i++) {
      for (const session of sessions) {
        const uid = `after-kill-${i}`;
        const res = await stack.command(tenant, session, 'answer', { command_uid: uid });
        if (res.status === 202) accepted.push({ session, uid });
      }
    }
    const unread = accepted.length - sessions.length;
    expect(unread).toBeGreaterThan(0);

    await receiver.until(
      () => accepted.every(({ session, uid }) => resultsOf(session, uid).length > 0),
      15_000,
      'command.result for every accepted command',
    );
    const answeredIn = Date.now() - killedAt;
    for (const session of sessions) await stack.events.of(session, 'call.hangup', 10_000);
    await receiver.until(
      () => sessions.every((s) => hooksOf(s).some((e) => e.event === 'call.hangup')),
      10_000,
      'call.hangup webhooks',
    );
    console.log(
      `${accepted.length} commands (${sessions.length} unacknowledged, ${unread} unread) ` +
        `answered ${answeredIn} ms after kill -9; call.hangup after ${Date.now() - killedAt} ms`,
    );

    for (const { session, uid } of accepted) {
      const [result, ...more] = resultsOf(session, uid);
      expect(more).toEqual([]);
      expect(result).toMatchObject({ success: false, error: NODE_LOST });
    }
    for (const session of sessions) {
      const hooks = hooksOf(session);
      const hangup = hooks.findIndex((e) => e.event === 'call.hangup');
      const lastResult = hooks.findLastIndex((e) => e.event === 'command.result');
      expect(lastResult).toBeLessThan(hangup);
      expect(hooks.filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    }

    // The node comes back under its name: nothing it had is executed or answered again. A new
    // call's command, answered after whatever its consumer found in the stream, is the barrier.
    // (The old calls are hung up first, or its resync would take them as new calls.)
    for (const uuid of calls) await control.hangup(uuid);
    const { prefix: again } = await victimNode(name);
    expect(again).toBe(prefix);
    const fresh = `${prefix}-${await control.call(did, mobile())}`;
    await stack.events.of(fresh, 'call.new');
    await stack.command(tenant, fresh, 'answer', { command_uid: 'barrier' });
    await receiver.until(() => resultsOf(fresh, 'barrier').length === 1, 10_000, 'the barrier');
    for (const { session, uid } of accepted) expect(resultsOf(session, uid)).toHaveLength(1);
    expect(Number((await stack.redis.xpending(stream, 'media-node'))[0])).toBe(0);
  }, 60_000); // two media node processes start on a loaded machine
});
