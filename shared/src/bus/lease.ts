import type { Redis } from 'ioredis';
import Redlock, { ResourceLockedError, type Lock } from 'redlock';
import type { Logger } from '../logger.js';
import { SCRIPT_BUILDERS as lua } from '../redis/lua/index.js';
import { LuaScripts } from '../redis/scripts.js';

/** A redlock lease, extended in the background until released or lost. */
export interface Lease {
  readonly resource: string;
  /** True while the lease is held and not expired. */
  valid(): boolean;
  /** When it runs out unless extended (epoch ms); in the past once released or lost. */
  expiresAt(): number;
  /** Stops extending and releases it (best effort: it expires anyway). */
  release(): Promise<void>;
}

/** A Redis error of lease operations is logged at most this often (with how many there were). */
const ERROR_LOG_EVERY_MS = 5000;
/** After a failed extension, how soon it is tried again (while the leases have time left). */
const RETRY_EXTEND_MS = 200;
/** redlock's clock drift allowance: a lease counts as expired this much before Redis expires it. */
const DRIFT_FACTOR = 0.01;
const driftMs = (ttlMs: number): number => Math.round(DRIFT_FACTOR * ttlMs) + 2;

/**
 * Takes leases on Redis resources with redlock and keeps them alive: every third of the TTL (a
 * round) all of them are extended in one script run (extendLeases-n.lua); a lease whose value is
 * gone is lost at once, and when extending keeps failing until a lease expires, it is lost too
 * (`onLost` runs), as is one found expired on a round (its extension never answered). A holder
 * that dies (kill -9) stops extending, so another process takes the resource over within one
 * TTL. The holder's own periodic work shares the round (`onRound`), so its commands leave in the
 * same write: a dispatcher holds a lease per shard (16 by default) and the router's, and a timer
 * and a redlock extension each woke it ten times a second.
 */
export class LeaseKeeper {
  private readonly redlock: Redlock;
  private readonly scripts: LuaScripts;
  private readonly held = new Set<HeldLease>();
  private readonly rounds = new Set<() => void>();
  private timer: NodeJS.Timeout | undefined;
  private retry: NodeJS.Timeout | undefined;
  private extending = false;
  /** Redis errors since the last one logged, and when that was. */
  private unreported = 0;
  private reportedAt = -Infinity;

  constructor(
    redis: Redis,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {
    this.scripts = new LuaScripts(redis);
    this.redlock = new Redlock([redis], {
      retryCount: 0,
      driftFactor: DRIFT_FACTOR,
      automaticExtensionThreshold: 0,
    });
    // redlock reports every refused vote of an acquire or release as an 'error' event: a
    // resource held elsewhere is contention, the normal case; anything else is Redis failing.
    this.redlock.on('error', (err: unknown) => {
      if (!(err instanceof ResourceLockedError)) this.redisFailed(err);
    });
  }

  /**
   * The lease, or undefined when another process holds the resource, or Redis is away (logged
   * by the 'error' handler above, apart from contention, which is not).
   */
  async tryAcquire(resource: string, onLost: () => void): Promise<Lease | undefined> {
    let lock: Lock;
    try {
      lock = await this.redlock.acquire([resource], this.ttlMs);
    } catch {
      return undefined;
    }
    const lease: HeldLease = new HeldLease(this.redlock, lock, resource, onLost, () => {
      this.held.delete(lease);
      this.tick();
    });
    this.held.add(lease);
    this.tick();
    return lease;
  }

  /** How often a round runs: a third of the TTL, so that a lease survives two failed rounds. */
  get roundMs(): number {
    return Math.floor(this.ttlMs / 3);
  }

  /** Runs `work` on every round, after the round's extension is sent; returns its removal. */
  onRound(work: () => void): () => void {
    this.rounds.add(work);
    this.tick();
    return () => {
      this.rounds.delete(work);
      this.tick();
    };
  }

  /** Runs the rounds while there is anything to do in them. */
  private tick(): void {
    if (this.held.size > 0 || this.rounds.size > 0) {
      this.timer ??= setInterval(() => {
        for (const lease of this.held) if (!lease.valid()) lease.lose();
        void this.extendAll();
        for (const work of this.rounds) work();
      }, this.roundMs);
    } else {
      clearInterval(this.timer);
      this.timer = undefined;
      clearTimeout(this.retry);
    }
  }

  /** Extends every lease held, in one script run. */
  private async extendAll(): Promise<void> {
    const leases = [...this.held];
    if (this.extending || leases.length === 0) return;
    this.extending = true;
    clearTimeout(this.retry);
    const calls = leases.map((lease) =>
      lua.extendLeases({ lease: lease.resource }, { value: lease.value, ttlMs: this.ttlMs }),
    );
    const sentAt = Date.now();
    try {
      const replies = (await this.scripts.run({
        name: 'extendLeases',
        keys: calls.flatMap((call) => call.keys),
        args: calls.flatMap((call) => call.args),
      })) as unknown[];
      const expiresAt = sentAt + this.ttlMs - driftMs(this.ttlMs);
      leases.forEach((lease, i) => {
        if (Number(replies[2 * i]) === 1) lease.extendedTo(expiresAt);
        else lease.lose();
      });
    } catch (err) {
      this.redisFailed(err);
      const giveUpAt = Date.now() + RETRY_EXTEND_MS;
      for (const lease of leases) if (lease.expiresAt() <= giveUpAt) lease.lose();
      if (this.held.size > 0) this.retry = setTimeout(() => void this.extendAll(), RETRY_EXTEND_MS);
    } finally {
      this.extending = false;
    }
  }

  /** Logs a Redis error, throttled: while Redis is away every lease fails several times a second. */
  private redisFailed(err: unknown): void {
    this.unreported++;
    const now = Date.now();
    if (now - this.reportedAt < ERROR_LOG_EVERY_MS) return;
    this.log.warn(
      { err, errors: this.unreported },
      'lease operation failed: Redis error, not contention',
    );
    this.unreported = 0;
    this.reportedAt = now;
  }
}

class HeldLease implements Lease {
  private expiration: number;
  private ended = false;

  constructor(
    private readonly redlock: Redlock,
    private readonly lock: Lock,
    readonly resource: string,
    private readonly onLost: () => void,
    private readonly onEnded: () => void,
  ) {
    this.expiration = lock.expiration;
  }

  /** The value that makes the resource this holder's. */
  get value(): string {
    return this.lock.value;
  }

  valid(): boolean {
    return !this.ended && this.expiration > Date.now();
  }

  expiresAt(): number {
    return this.ended ? 0 : this.expiration;
  }

  extendedTo(expiration: number): void {
    if (!this.ended) this.expiration = expiration;
  }

  async release(): Promise<void> {
    if (this.ended) return;
    this.end();
    await this.redlock.release(this.lock).catch(() => undefined);
  }

  lose(): void {
    if (this.ended) return;
    this.end();
    this.onLost();
  }

  private end(): void {
    this.ended = true;
    this.onEnded();
  }
}
