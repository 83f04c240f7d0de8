import { randomUUID } from 'node:crypto';
import type { NodeContext } from '../context.js';
import { failDeadNodeCommands } from './dead-commands.js';
import { endOrphan } from './orphan.js';

/**
 * The orphan sweeper: one media node at a time cluster-wide (a Redis lock, SET NX PX) finds
 * nodes whose heartbeat is gone. At once it answers the commands such a node accepted and never
 * answered (dead-commands.ts: command.result, success false); once ORPHAN_TIMEOUT_MS have passed
 * it gives each of the node's sessions, and each session whose channel a resync found gone that
 * its node could not end itself, exactly one synthetic call.hangup (failed, duration 0): always
 * after the session's commands were answered. Exactly once does not rest on the lock:
 * failDeadCommands-3.lua and endSession-6.lua each mark and publish atomically.
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
    const { redis, keys, log } = this.node;
    const seen = await redis.zrange(keys.nodesSeen(), 0, -1, 'WITHSCORES');
    for (let i = 0; i + 1 < seen.length; i += 2) {
      const prefix = seen[i] ?? '';
      if ((await redis.exists(keys.nodeHeartbeat(prefix))) === 1) continue;
      try {
        const answered = await failDeadNodeCommands(this.node, prefix);
        if (answered > 0) log.warn({ prefix, answered }, 'dead node: its pending commands failed');
      } catch (err) {
        // No call.hangup may overtake a command.result of its session: try again next round.
        log.warn({ err, prefix }, 'answering the commands of a dead node failed');
        continue;
      }
      if (Number(seen[i + 1]) > due) continue;
      const ids = await redis.smembers(keys.nodeSessions(prefix));
      for (const id of ids) await endOrphan(this.node, id);
      // A node with nothing left to sweep is forgotten until it beats again.
      if ((await redis.scard(keys.nodeSessions(prefix))) === 0)
        await redis.zrem(keys.nodesSeen(), prefix);
    }
  }

  private async sweepVanished(due: number): Promise<void> {
    const { redis, keys } = this.node;
    const ids = await redis.zrangebyscore(keys.vanishedSessions(), '-inf', due);
    for (const id of ids) {
      await endOrphan(this.node, id);
      await redis.zrem(keys.vanishedSessions(), id);
    }
  }
}
