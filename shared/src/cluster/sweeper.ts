import { randomUUID } from 'node:crypto';
import { parseSessionId } from '../ids.js';
import { HeartbeatAbsence } from './absence.js';
import type { ClusterContext } from './context.js';
import { failDeadNodeCommands } from './dead-commands.js';
import { endOrphan } from './orphan.js';

export interface SweeperOptions {
  /** SWEEP_INTERVAL_MS: how often it observes the heartbeats and, holding the lock, sweeps. */
  readonly intervalMs: number;
  /** HEARTBEAT_TTL_MS: how long a heartbeat must be seen missing before its node is dead. */
  readonly heartbeatTtlMs: number;
  /** ORPHAN_TIMEOUT_MS: how long after its last beat a dead node's sessions are ended. */
  readonly orphanTimeoutMs: number;
  /** The prefix of the media node this sweeper runs in: a node never sweeps itself. */
  readonly self?: string;
  /** Called for each synthetic call.hangup this sweeper published (the node counts them). */
  readonly onOrphanEnded?: () => void;
}

/**
 * The orphan sweeper, run by every media node and every dispatcher (so a gateway whose only
 * media node died still has one). Each round it observes every known node's heartbeat
 * (absence.ts decides when a missing one means dead); then, if it has work, one process at a
 * time cluster-wide (a Redis lock, SET NX PX) answers the commands a dead node accepted and
 * never answered (dead-commands.ts: command.result, success false), and once ORPHAN_TIMEOUT_MS
 * have passed since its last beat gives each of its sessions, and each session whose channel a
 * resync found gone that its node could not end itself, exactly one synthetic call.hangup
 * (failed, duration 0): always after the session's commands were answered. Exactly once does
 * not rest on the lock: failDeadCommands-3.lua and endSession-6.lua each mark and publish
 * atomically.
 */
export class OrphanSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly token = randomUUID();
  private readonly absence: HeartbeatAbsence;

  constructor(
    private readonly ctx: ClusterContext,
    private readonly options: SweeperOptions,
  ) {
    this.absence = new HeartbeatAbsence(ctx.redis, options.heartbeatTtlMs);
  }

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = undefined));
    }, this.options.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.absence.close();
    await this.running;
  }

  /** One round: observe the heartbeats; sweep if this process holds the lock for the round. */
  async sweep(): Promise<void> {
    const { redis, keys, log } = this.ctx;
    try {
      const due = Date.now() - this.options.orphanTimeoutMs;
      // Read together: a round that finds nothing to do costs two round trips, one without
      // other nodes.
      const [lastSeen, vanished] = await Promise.all([
        this.lastSeen(),
        redis.zrangebyscore(keys.vanishedSessions(), '-inf', due),
      ]);
      const dead = this.absence.observe(await this.beating(lastSeen));
      // Only a process with work takes the lock: one holding it for a round with nothing to do (a
      // dispatcher that started later and is still observing, or sweeps every 5 s against a
      // node's 100 ms) would keep it, round after round, from the one that found the node dead.
      if (dead.length === 0 && vanished.length === 0) return;
      const lock = await redis.set(
        keys.sweeperLock(),
        this.token,
        'PX',
        Math.max(50, this.options.intervalMs - 10),
        'NX',
      );
      if (lock === null) return;
      for (const prefix of dead) await this.sweepDeadNode(prefix, lastSeen.get(prefix) ?? 0, due);
      await this.sweepVanished(vanished);
    } catch (err) {
      // An observation missed breaks the run of observations a node's death is judged on.
      this.absence.reset();
      log.warn({ err }, 'orphan sweep failed');
    }
  }

  /** Every node that beat since it was last swept away → epoch ms of its last beat. */
  private async lastSeen(): Promise<Map<string, number>> {
    const { redis, keys } = this.ctx;
    const seen = await redis.zrange(keys.nodesSeen(), 0, -1, 'WITHSCORES');
    const nodes = new Map<string, number>();
    for (let i = 0; i + 1 < seen.length; i += 2) {
      const prefix = seen[i] ?? '';
      if (prefix !== this.options.self) nodes.set(prefix, Number(seen[i + 1]));
    }
    return nodes;
  }

  /** Which of the nodes have a heartbeat now (one EXISTS each, sent together). */
  private async beating(nodes: ReadonlyMap<string, number>): Promise<Map<string, boolean>> {
    const { redis, keys } = this.ctx;
    const prefixes = [...nodes.keys()];
    const exists = await Promise.all(
      prefixes.map((prefix) => redis.exists(keys.nodeHeartbeat(prefix))),
    );
    return new Map(prefixes.map((prefix, i) => [prefix, exists[i] === 1]));
  }

  private async sweepDeadNode(prefix: string, lastSeen: number, due: number): Promise<void> {
    const { redis, keys, log } = this.ctx;
    try {
      const answered = await failDeadNodeCommands(this.ctx, prefix);
      if (answered > 0) log.warn({ prefix, answered }, 'dead node: its pending commands failed');
    } catch (err) {
      // No call.hangup may overtake a command.result of its session: try again next round.
      log.warn({ err, prefix }, 'answering the commands of a dead node failed');
      return;
    }
    if (lastSeen > due) return;
    const ids = await redis.smembers(keys.nodeSessions(prefix));
    for (const id of ids) if (await endOrphan(this.ctx, id, prefix)) this.options.onOrphanEnded?.();
    // A node with nothing left to sweep is forgotten until it beats again.
    if ((await redis.scard(keys.nodeSessions(prefix))) === 0)
      await redis.zrem(keys.nodesSeen(), prefix);
  }

  /** Ends the vanished sessions that are due (`ids`, read before the lock was taken). */
  private async sweepVanished(ids: readonly string[]): Promise<void> {
    const { redis, keys } = this.ctx;
    for (const id of ids) {
      const owner = parseSessionId(id)?.prefix ?? '';
      if (await endOrphan(this.ctx, id, owner)) this.options.onOrphanEnded?.();
      await redis.zrem(keys.vanishedSessions(), id);
    }
  }
}
