import { randomBytes, randomUUID } from 'node:crypto';
import { NodeRegistry, SessionStore, sessionId, type RedisKeys } from '@voicegw/shared';
import type { Redis } from 'ioredis';
import { AppStore } from '@voicegw/api';

/** One app with one live session: what a request of the command load needs. */
export interface SeededSession {
  readonly appId: string;
  readonly apiKey: string;
  readonly sessionId: string;
}

export interface LiveSessionsOptions {
  readonly apps: number;
  /** Per-minute limit of each app (its `rate_limit`). */
  readonly rateLimitPerMinute: number;
}

/** Long enough that the media node stays live for the whole run without a heartbeat loop. */
const HEARTBEAT_TTL_MS = 60 * 60 * 1000;

/**
 * Seeds Redis as a running gateway would have it, straight through the stores the processes
 * use: a live media node (prefix claim + heartbeat), apps, and one live session per app on it.
 */
export class LiveSessions {
  private constructor(
    private readonly redis: Redis,
    private readonly keys: RedisKeys,
    readonly nodePrefix: string,
    readonly sessions: readonly SeededSession[],
  ) {}

  static async seed(redis: Redis, keys: RedisKeys, options: LiveSessionsOptions) {
    const nodes = new NodeRegistry(redis, keys);
    const name = 'bench-media-node';
    const prefix = await nodes.claimPrefix(name);
    await nodes.heartbeat(
      prefix,
      {
        name,
        capacity: 10_000,
        active_sessions: options.apps,
        outbound_capacity: 0,
        draining: false,
      },
      HEARTBEAT_TTL_MS,
    );
    const apps = new AppStore(redis, keys);
    const store = new SessionStore(redis, keys);
    const sessions = await Promise.all(
      Array.from({ length: options.apps }, async (_, i): Promise<SeededSession> => {
        const appId = `bench_app_${String(i).padStart(4, '0')}`;
        const apiKey = `key-${randomBytes(16).toString('hex')}`;
        await apps.save({
          app_id: appId,
          webhook_url: '',
          api_key: apiKey,
          rate_limit: options.rateLimitPerMinute,
          events: [],
          webhook_secret: `whsec_${randomBytes(24).toString('base64')}`,
          created_at: new Date().toISOString(),
        });
        const id = sessionId(prefix, randomUUID());
        await store.create(id, {
          app_id: appId,
          node: prefix,
          direction: 'inbound',
          caller_id: '0501234567',
          did: '0731234567',
        });
        return { appId, apiKey, sessionId: id };
      }),
    );
    return new LiveSessions(redis, keys, prefix, sessions);
  }

  /**
   * Keeps the node's command stream short while a load runs, as the media node's consumer does
   * by trimming what it acknowledged: no media node consumes the stream here, and a stream that
   * grew by hundreds of thousands of entries per run made Redis' AOF rewrites (a fork writing
   * the whole stream) far heavier than in production. Returns a function that stops it.
   */
  keepStreamShort(intervalMs = 100): () => void {
    const stream = this.keys.commandStream(this.nodePrefix);
    const timer = setInterval(() => {
      void this.redis.xtrim(stream, 'MAXLEN', '~', 1000).catch(() => undefined);
    }, intervalMs);
    return () => clearInterval(timer);
  }

  /**
   * Drops what the previous measurement left (the rest of the node's command stream and the
   * idempotency claims), so every measurement starts from the same memory footprint.
   */
  async reset(): Promise<void> {
    await this.redis.xtrim(this.keys.commandStream(this.nodePrefix), 'MAXLEN', 0);
    const pattern = this.keys.commandClaim('*', '*', '*');
    let cursor = '0';
    do {
      const [next, found] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 2000);
      if (found.length > 0) await this.redis.unlink(...found);
      cursor = next;
    } while (cursor !== '0');
  }

  /** Entries the api has appended to the node's command stream so far, trimmed ones included. */
  async appended(): Promise<number> {
    const stream = this.keys.commandStream(this.nodePrefix);
    if ((await this.redis.exists(stream)) === 0) return 0;
    const info = (await this.redis.xinfo('STREAM', stream)) as unknown[];
    const at = info.indexOf('entries-added');
    return at < 0 ? Number.NaN : Number(info[at + 1]);
  }
}
