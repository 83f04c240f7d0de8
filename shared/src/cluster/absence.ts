import type { Redis } from 'ioredis';

/**
 * When a sweeper may take a media node for dead: its heartbeat was missing on every one of this
 * sweeper's observations over at least `graceMs` (HEARTBEAT_TTL_MS), all made while this
 * sweeper's own Redis connection stayed up. A missing key alone proves nothing after a Redis
 * outage or restart: every node's heartbeat may have expired (or been lost) while nobody could
 * beat, and the node re-announces itself only once its own connection is back. A drop of this
 * connection forgets every observation; a node seen beating once is cleared.
 */
export class HeartbeatAbsence {
  /** Prefix → epoch ms of the first of the unbroken run of observations that missed it. */
  private readonly missingSince = new Map<string, number>();
  private readonly forget = (): void => this.missingSince.clear();

  constructor(
    private readonly redis: Redis,
    private readonly graceMs: number,
  ) {
    redis.on('close', this.forget);
  }

  /** Records one observation (`beating`: prefix → heartbeat present); returns the dead nodes. */
  observe(beating: ReadonlyMap<string, boolean>, now = Date.now()): string[] {
    const dead: string[] = [];
    for (const prefix of this.missingSince.keys())
      if (!beating.has(prefix)) this.missingSince.delete(prefix);
    for (const [prefix, present] of beating) {
      if (present) {
        this.missingSince.delete(prefix);
        continue;
      }
      const since = this.missingSince.get(prefix) ?? now;
      this.missingSince.set(prefix, since);
      if (now - since >= this.graceMs) dead.push(prefix);
    }
    return dead;
  }

  /** Forgets the observations after a failed one: they no longer form an unbroken run. */
  reset(): void {
    this.forget();
  }

  close(): void {
    this.redis.off('close', this.forget);
  }
}
