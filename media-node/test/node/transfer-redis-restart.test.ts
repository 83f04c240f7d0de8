// A transfer whose node loses Redis while the new leg rings: Redis (a process of the test's own,
// with AOF) stops and comes back on the same port. FreeSWITCH goes on meanwhile: the leg
// answers and is bridged; what the node owes Redis waits for it, and each event of the transfer
// is then published exactly once, in order.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredCall } from './calls.js';
import { mobile } from './harness.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0733560000';
const cid = '0722560000';
const dir = mkdtempSync(join(tmpdir(), 'voicegw-transfer-redis-'));
let port: number;
let redis: SpawnedRedis;

beforeAll(async () => {
  port = await freePort();
  redis = await spawnRedis({ appendOnly: true, port, dir });
});
// Hooks after it close first: Redis stops once the stack has closed.
afterAll(async () => {
  await redis.stop();
  rmSync(dir, { recursive: true, force: true });
});
const stack = useStack(() => ({ redisUrl: redis.url }));
const tenant = useTenant(stack, { dids: [did], cids: [cid] });

describe('Redis restarted while a transfer rings', () => {
  it('the leg still answers and is bridged; each event of the transfer is published once, in order', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 2500);
    const caller = await answeredCall(stack, tenant, did);
    const res = await stack.command(tenant, caller.session, 'transfer', {
      to,
      from: cid,
      timeout_sec: 20,
      command_uid: 'transfer',
    });
    expect(res.status).toBe(202);
    const leg = String(res.body.peer_session_uuid);
    await stack.events.of(leg, 'session.ringing');

    await redis.stop();
    // Redis is away across the answer (2.5 s after the dial): the bridge goes on without it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect((await stack.control.calls()).length).toBe(2);
    redis = await spawnRedis({ appendOnly: true, port, dir });

    expect(
      await stack.events.ofCommand(caller.session, 'command.result', 'transfer', 20_000),
    ).toMatchObject({ success: true, outcome: 'answered', peer_session_uuid: leg });
    await stack.events.of(leg, 'call.bridged', 5000);
    const names = (session: string) => stack.events.session(session).map((e) => e.event);
    expect(names(leg)).toEqual([
      'session.dialing',
      'session.ringing',
      'call.answered',
      'call.bridged',
    ]);
    expect(names(caller.session).filter((n) => n !== 'call.new')).toEqual([
      'call.answered',
      'command.result',
      'call.bridged',
      'command.result',
    ]);

    await stack.command(tenant, caller.session, 'hangup');
    expect(await stack.events.of(leg, 'call.unbridged')).toMatchObject({ reason: 'peer_hangup' });
    await stack.command(tenant, leg, 'hangup');
    await stack.events.of(leg, 'call.hangup');
    await expect.poll(async () => (await stack.control.calls()).length).toBe(0);
  }, 60_000);
});
