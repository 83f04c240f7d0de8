import type { Redis } from 'ioredis';
import Redlock, { ResourceLockedError, type Lock } from 'redlock';
import type { Logger } from '../logger.js';

/** A redlock lease, extended in the background until released or lost. */
export interface Lease {
  readonly resource: string;
  /** True while the lease is held and not expired. */
  valid(): boolean;
  /** Stops extending and releases it (best effort: it expires anyway). */
  release(): Promise<void>;
}

/** A Redis error of lease operations is logged at most this often (with how many there were). */
const ERROR_LOG_EVERY_MS = 5000;

/**
 * Takes leases on Redis resources with redlock and keeps them alive: each is extended every
 * third of its TTL; when extension keeps failing until it expires, `onLost` runs. A holder that
 * dies (kill -9) stops extending, so another process takes the resource over within one TTL.
 */
export class LeaseKeeper {
  private readonly redlock: Redlock;
  /** Redis errors since the last one logged, and when that was. */
  private unreported = 0;
  private reportedAt = -Infinity;

  constructor(
    redis: Redis,
    private readonly ttlMs: number,
    private readonly log: Logger,
  ) {
    this.redlock = new Redlock([redis], {
      retryCount: 0,
      driftFactor: 0.01,
      automaticExtensionThreshold: 0,
    });
    // redlock reports every refused vote of an acquire, extend or release as an 'error' event:
    // a resource held elsewhere is contention, the normal case; anything else is Redis failing.
    this.redlock.on('error', (err: unknown) => {
      if (!(err instanceof ResourceLockedError)) this.redisFailed(err);
    });
  }

  /**
   * The lease, or undefined when another process holds the resource, or Redis is away (logged
   * by the 'error' handler above, apart from contention, which is not).
   */
  async tryAcquire(resource: string, onLost: () => void): Promise<Lease | undefined> {
    try {
      const lock = await this.redlock.acquire([resource], this.ttlMs);
      return new HeldLease(this.redlock, lock, resource, this.ttlMs, onLost);
    } catch {
      return undefined;
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

const RETRY_EXTEND_MS = 200;

class HeldLease implements Lease {
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly redlock: Redlock,
    private lock: Lock,
    readonly resource: string,
    private readonly ttlMs: number,
    private readonly onLost: () => void,
  ) {
    this.schedule(Math.floor(ttlMs / 3));
  }

  valid(): boolean {
    return !this.ended && this.lock.expiration > Date.now();
  }

  async release(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    clearTimeout(this.timer);
    await this.redlock.release(this.lock).catch(() => undefined);
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(() => void this.extend(), delayMs);
  }

  private async extend(): Promise<void> {
    if (this.ended) return;
    try {
      const extended = await this.lock.extend(this.ttlMs);
      if (this.ended) {
        await this.redlock.release(extended).catch(() => undefined);
        return;
      }
      this.lock = extended;
      this.schedule(Math.floor(this.ttlMs / 3));
    } catch {
      if (this.ended) return;
      if (this.lock.expiration > Date.now() + RETRY_EXTEND_MS) {
        this.schedule(RETRY_EXTEND_MS);
        return;
      }
      this.ended = true;
      this.onLost();
    }
  }
}
