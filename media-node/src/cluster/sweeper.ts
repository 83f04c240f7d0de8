import { randomUUID } from 'node:crypto';
import { parseSession } from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import { recordHangup } from '../session/teardown.js';

/**
 * The orphan sweeper: one media node at a time cluster-wide (a Redis lock, SET NX PX) finds
 * sessions whose node's heartbeat is gone, or whose channel a resync found gone, and once
 * ORPHAN_TIMEOUT_MS have passed gives each exactly one synthetic call.hangup (failed, duration
 * 0). Exactly once does not rest on the lock: endSession-6.lua marks and publishes atomically.
 */
export class OrphanSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly token = randomUUID();

  constructor(private readonly node: NodeContext) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = undefined));
    }, this.node.config.SWEEP_INTERVAL_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep, if this node holds the lock for this round. */
  async sweep(): Promise<void> {
    const { redis, keys, config, log } = this.node;
    try {
      const lock = await redis.set(
        keys.sweeperLock(),
        this.token,
        'PX',
        Math.max(50, config.SWEEP_INTERVAL_MS - 10),
        'NX',
      );
      if (lock === null) return;
      const due = Date.now() - config.ORPHAN_TIMEOUT_MS;
      await this.sweepDeadNodes(due);
      await this.sweepVanished(due);
    } catch (err) {
      log.warn({ err }, 'orphan sweep failed');
    }
  }

  private async sweepDeadNodes(due: number): Promise<void> {
    const { redis, keys } = this.node;
    const prefixes = await redis.zrangebyscore(keys.nodesSeen(), '-inf', due);
    for (const prefix of prefixes) {
      if ((await redis.exists(keys.nodeHeartbeat(prefix))) === 1) continue;
      const ids = await redis.smembers(keys.nodeSessions(prefix));
      for (const id of ids) await this.orphan(id);
      // A node with nothing left to sweep is forgotten until it beats again.
      if ((await redis.scard(keys.nodeSessions(prefix))) === 0)
        await redis.zrem(keys.nodesSeen(), prefix);
    }
  }

  private async sweepVanished(due: number): Promise<void> {
    const { redis, keys } = this.node;
    const ids = await redis.zrangebyscore(keys.vanishedSessions(), '-inf', due);
    for (const id of ids) {
      await this.orphan(id);
      await redis.zrem(keys.vanishedSessions(), id);
    }
  }

  private async orphan(id: string): Promise<void> {
    const { node } = this;
    const raw = await node.redis.hgetall(node.keys.session(id));
    const session = raw.app_id ? parseSession(raw) : undefined;
    if (session?.conf_room) await node.redis.zrem(node.keys.roomMembers(session.conf_room), id);
    const published = await recordHangup(node, {
      sessionId: id,
      appId: session?.app_id ?? '',
      direction: session?.direction ?? 'inbound',
      metadata: session?.metadata,
      cause: 'failed',
      durationSeconds: 0,
      reason: 'orphaned',
    });
    if (published) node.log.info({ session_uuid: id }, 'orphaned session: synthetic call.hangup');
  }
}
