// FreeSWITCH (the simulator as a process of its own) killed with kill -9 while a call is up, then
// started again on the same event socket port: the media node (a process too) finds the channel
// gone on resync and publishes the call's one call.hangup itself, at once.
import { randomUUID } from 'node:crypto';
import { freePort } from '@voicegw/tools';
import { afterAll, describe, expect, it } from 'vitest';
import { mobile } from './harness.js';
import { startNodeProcess, startSimulatorProcess, type LoggedProcess } from './processes.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0735558888';
const processes: LoggedProcess[] = [];

const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });

afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
});

describe('FreeSWITCH restarted under a call', () => {
  it('the node publishes the call.hangup at once, after the results of its commands, and counts the session once', async () => {
    const eslPort = await freePort();
    const first = await startSimulatorProcess(eslPort);
    processes.push(first.process);
    // The sweeper's timeout is far away: a prompt call.hangup can only be the node's own.
    const node = await startNodeProcess({
      REDIS_PREFIX: stack.redisPrefix,
      NODE_NAME: `fs-restart-${randomUUID()}`,
      FS_ESL_PORT: String(eslPort),
      ORPHAN_TIMEOUT_MS: '120000',
    });
    processes.push(node);
    const prefix = String((await node.waitFor((l) => l.msg === 'media node ready')).node);

    const session = `${prefix}-${await first.control.call(did, mobile())}`;
    await stack.events.of(session, 'call.new');
    await stack.command(tenant, session, 'answer', { command_uid: 'answer' });
    await stack.events.of(session, 'call.answered');

    await first.process.kill();
    await node.waitFor((l) => l.msg === 'FreeSWITCH connection lost; reconnecting');
    const res = await stack.command(tenant, session, 'playback/pause', { command_uid: 'outage' });
    expect(res.status).toBe(202);

    const second = await startSimulatorProcess(eslPort);
    processes.push(second.process);
    const backAt = Date.now();
    const hangup = await stack.events.of(session, 'call.hangup', 10_000);
    console.log(`call.hangup ${Date.now() - backAt} ms after FreeSWITCH was back`);
    expect(hangup).toMatchObject({ hangup_cause: 'failed', duration_seconds: 0 });

    const resynced = await node.waitFor(
      (l) => l.msg === 'resynchronised with FreeSWITCH' && l.vanished !== 0,
    );
    expect(resynced).toMatchObject({ vanished: 1, kept: 0 });
    const gone = node.lines.filter(
      (l) => l.msg === 'channel gone while we were away' && l.session_uuid === session,
    );
    expect(gone).toHaveLength(1);

    const events = stack.events.session(session);
    const outage = events.findIndex((e) => e.command_uid === 'outage');
    expect(events[outage]).toMatchObject({ event: 'command.result', success: false });
    expect(outage).toBeLessThan(events.findIndex((e) => e.event === 'call.hangup'));
    expect(events.filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    expect(await stack.redis.hget(stack.keys.session(session), 'end_reason')).toBe('orphaned');
  }, 60_000); // three processes start on a loaded machine
});
