// A live media node whose heartbeat is gone for a moment, as after a Redis outage longer than
// its TTL or a Redis restart that lost the key: no sweeper, its own included, takes it for dead.
// Its pending command gets its one real command.result, its call no synthetic call.hangup.
import { describe, expect, it } from 'vitest';
import { answeredCall } from './calls.js';
import { fastSweeper, heartbeats } from './harness.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0735552468';
const stack = useStack({
  nodeEnv: {
    // Beats far apart, so a re-announcement on reconnect is told apart from the next beat;
    // sessions of a dead node would be ended at once.
    ...heartbeats(2000, 5000),
    ...fastSweeper(0),
  },
});
const tenant = useTenant(stack, { dids: [did] });
const audio = useAudio();

/** Closes the node's command connection from the Redis side; resolves with how many. */
async function dropConnections(name: string): Promise<number> {
  const list = String(await stack.redis.client('LIST'));
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => /\bid=(\d+)/.exec(line)?.[1]);
  for (const id of ids) if (id) await stack.redis.client('KILL', 'ID', id);
  return ids.length;
}

describe('a live node whose heartbeat expired while Redis was away', () => {
  it('beats again as soon as Redis is back, and no sweeper answers its commands or ends its calls', async () => {
    const { node: other } = await stack.startNode();
    const node = stack.node;
    const { session } = await answeredCall(stack, tenant, did);
    // Read but unacknowledged while the heartbeat is gone: its audio takes 1.5 s to fetch.
    const res = await stack.command(tenant, session, 'playback/start', {
      urls: [`${audio.base}/slow1500ms.wav`],
      command_uid: 'pending',
    });
    expect(res.status).toBe(202);
    const stream = stack.keys.commandStream(node.prefix);
    await expect
      .poll(async () => Number((await stack.redis.xpending(stream, 'media-node'))[0]))
      .toBe(1);

    // Redis comes back without the heartbeat, and the node's connection comes back with it.
    const heartbeat = stack.keys.nodeHeartbeat(node.prefix);
    await stack.redis.del(heartbeat);
    expect(await dropConnections('media-node')).toBeGreaterThan(0);
    // Every sweeper looks at once, the node's own among them.
    await Promise.all([node.sweep(), other.sweep()]);
    const gone = Date.now();
    await expect.poll(() => stack.redis.exists(heartbeat), { timeout: 1500 }).toBe(1);
    expect(Date.now() - gone).toBeLessThan(1500);

    await expect
      .poll(
        () =>
          stack.events
            .session(session)
            .filter((e) => e.event === 'command.result' && e.command_uid === 'pending'),
        { timeout: 5000 },
      )
      .toHaveLength(1);
    // Sweeps go on meanwhile (every 100 ms): give a late second result or hangup time to come.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const events = stack.events.session(session);
    expect(
      events.filter((e) => e.event === 'command.result' && e.command_uid === 'pending'),
    ).toEqual([expect.objectContaining({ success: true })]);
    expect(events.filter((e) => e.event === 'call.hangup')).toEqual([]);
    expect(node.sessions.get(session)).toBeDefined();
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
  }, 30_000);
});
