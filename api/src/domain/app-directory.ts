import { createRedis, type RedisEndpoint, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';
import type { AppRecord, AppStore } from './apps.js';

/** An app as authentication needs it: its record and a set holding its API key. */
export interface KnownApp {
  readonly record: AppRecord;
  /**
   * `record.api_key` as the one member of a set. A key given in a request is looked up by its
   * string hash (seeded at random per process), so a wrong key is never compared character by
   * character with the right one: no timing tells how much of it matched, and no sha256 is
   * needed per request.
   */
  readonly apiKeys: ReadonlySet<string>;
}

interface Entry {
  readonly app: KnownApp | undefined;
  readonly expires: number;
}

/** Upper bound of cached entries, so random app ids cannot grow the cache without limit. */
const MAX_ENTRIES = 50_000;

/**
 * App configuration as the hot path reads it: cached in process for at most `ttlMs` and dropped
 * at once when any node announces a change on the apps channel, so a deleted app's key stops
 * authenticating everywhere within a pub/sub round trip.
 */
export class AppDirectory {
  private readonly cache = new Map<string, Entry>();
  private subscriber: Redis | undefined;
  /** Bumped on every announcement, so a read that raced with a change is not cached. */
  private generation = 0;

  constructor(
    private readonly store: AppStore,
    private readonly keys: RedisKeys,
    private readonly ttlMs: number,
  ) {}

  /** Subscribes to change announcements on a connection of its own. */
  async start(endpoint: RedisEndpoint, onError: (err: Error) => void): Promise<void> {
    const subscriber = createRedis(endpoint, { name: 'api:apps-changed' });
    subscriber.on('error', onError);
    subscriber.on('message', (_channel: string, appId: string) => this.forget(appId));
    // After a reconnect, changes may have been missed: forget everything cached.
    subscriber.on('ready', () => {
      this.generation++;
      this.cache.clear();
    });
    await subscriber.subscribe(this.keys.appsChanged());
    this.subscriber = subscriber;
  }

  async stop(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
    this.cache.clear();
  }

  /** The cached answer for `appId` while it is fresh (its `app` undefined: no such app). */
  fresh(appId: string): { readonly app: KnownApp | undefined } | undefined {
    const hit = this.cache.get(appId);
    return hit && hit.expires > Date.now() ? hit : undefined;
  }

  async get(appId: string): Promise<KnownApp | undefined> {
    const hit = this.fresh(appId);
    if (hit) return hit.app;
    const now = Date.now();
    const generation = this.generation;
    const record = await this.store.get(appId);
    const app = record && { record, apiKeys: new Set([record.api_key]) };
    if (this.ttlMs > 0 && generation === this.generation) {
      if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
      this.cache.set(appId, { app, expires: now + this.ttlMs });
    }
    return app;
  }

  forget(appId: string): void {
    this.generation++;
    this.cache.delete(appId);
  }
}
