// The only media node of a gateway (as `npm start` runs one) killed with kill -9 for good, with
// commands in its stream and a call up: no media node survives to sweep, the dispatcher does.
// Every accepted command gets one failed command.result, before the session's one call.hangup.
import { randomUUID } from 'node:crypto';
import { startDispatcher, type Dispatcher } from '@voicegw/api';
import { NODE_LOST } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherEnv, useReceiver } from '../../../api/test/dispatcher-helpers.js';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { fastSweeper, mobile, SimControl } from './harness.js';
import { startNodeProcess, type LoggedProcess } from './processes.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0735551357';
const HOOK = 'lonely-app';
const TIMINGS = { HEARTBEAT_TTL_MS: '3000', ...fastSweeper(1500) };

let dispatcher: Dispatcher;
let sim: Simulator;
let victim: LoggedProcess | undefined;

const stack = useStack();
// The stack's in-process node leaves at once: the victim is the gateway's only media node.
beforeAll(() => stack.node.close());
const receiver = useReceiver();
beforeAll(async () => {
  dispatcher = await startDispatcher(dispatcherEnv(stack.redisPrefix, TIMINGS));
  sim = await startSimulator({ eslPort: 0, httpPort: 0 });
});
afterAll(async () => {
  await victim?.stop();
  await sim.close();
  await dispatcher.close();
});
const tenant = useTenant(stack, () => ({ dids: [did], webhookUrl: receiver.url(HOOK) }));
const audio = useAudio();

describe('the only media node killed for good', () => {
  it('the dispatcher answers each accepted command once, as lost, before the call.hangup', async () => {
    victim = await startNodeProcess({
      ...TIMINGS,
      REDIS_PREFIX: stack.redisPrefix,
      NODE_NAME: `lonely-${randomUUID()}`,
      FS_ESL_PORT: String(sim.eslPort),
      HEARTBEAT_INTERVAL_MS: '300',
    });
    const ready = await victim.waitFor((l) => l.msg === 'media node ready');
    const prefix = String(ready.node);
    const control = new SimControl(sim.controlUrl);
    const session = `${prefix}-${await control.call(did, mobile())}`;
    await stack.events.of(session, 'call.new');
    await stack.command(tenant, session, 'answer', { command_uid: 'answer' });
    await stack.events.of(session, 'call.answered');

    // Read but unacknowledged (its audio takes 10 s), then unread ones after the kill.
    const uids = ['slow-playback'];
    const slow = await stack.command(tenant, session, 'playback/start', {
      urls: [`${audio.base}/slow10000ms.wav`],
      command_uid: 'slow-playback',
    });
    expect(slow.status).toBe(202);
    const stream = stack.keys.commandStream(prefix);
    await expect
      .poll(async () => Number((await stack.redis.xpending(stream, 'media-node'))[0]))
      .toBe(1);
    await victim.kill();
    for (let i = 0; i < 3; i++) {
      const res = await stack.command(tenant, session, 'answer', { command_uid: `after-${i}` });
      if (res.status === 202) uids.push(`after-${i}`);
    }
    expect(uids.length).toBeGreaterThan(1);

    await receiver.until(
      () => receiver.hooksOf(HOOK, session).some((e) => e.event === 'call.hangup'),
      20_000,
      'the call.hangup webhook',
    );
    await new Promise((resolve) => setTimeout(resolve, 500)); // a late duplicate would show
    const hooks = receiver.hooksOf(HOOK, session);
    const hangup = hooks.findIndex((e) => e.event === 'call.hangup');
    for (const uid of uids) {
      const results = hooks.filter((e) => e.event === 'command.result' && e.command_uid === uid);
      expect(results, uid).toHaveLength(1);
      expect(results[0]).toMatchObject({ success: false, error: NODE_LOST });
      expect(hooks.indexOf(results[0]!)).toBeLessThan(hangup);
    }
    expect(hooks.filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    expect(hooks[hangup]).toMatchObject({ hangup_cause: 'failed', duration_seconds: 0 });
  }, 60_000);
});
