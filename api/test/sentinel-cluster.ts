// A Redis primary, one replica and three sentinels on loopback, as docs/operations.md asks
// production to run Redis, for tests of a failover: a test kills the primary and Sentinel
// promotes the replica.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnRedis, spawnSentinel, type SpawnedRedis, type SpawnedSentinel } from '@voicegw/tools';
import { Redis } from 'ioredis';
import { vi } from 'vitest';

export const PRIMARY_NAME = 'voicegw-test';

/** Fast enough for a test: down after 1 s of silence, an attempt bounded by 3 s. */
const DOWN_AFTER_MS = 1000;
const FAILOVER_TIMEOUT_MS = 3000;

export interface ClusterPorts {
  readonly primary: number;
  readonly replica: number;
  readonly sentinels: readonly number[];
}

export class SentinelCluster {
  /** The first primary's data, AOF included, kept after it is killed (see `acknowledged`). */
  private readonly primaryDir = mkdtempSync(join(tmpdir(), 'voicegw-sentinel-primary-'));
  private primary: SpawnedRedis | undefined;
  private replica: SpawnedRedis | undefined;
  private sentinels: SpawnedSentinel[] = [];

  constructor(readonly ports: ClusterPorts) {}

  /** The variables that point a process at this cluster. */
  get env(): { REDIS_SENTINELS: string; REDIS_SENTINEL_NAME: string } {
    return {
      REDIS_SENTINELS: this.ports.sentinels.map((port) => `127.0.0.1:${port}`).join(','),
      REDIS_SENTINEL_NAME: PRIMARY_NAME,
    };
  }

  /**
   * Starts the primary (AOF on, written before every reply so that `acknowledged` reads all it
   * acknowledged: under `everysec` a busy disk holds the write back up to 2 s), its replica and the sentinels (quorum 2),
   * and waits until the replica is in sync and every sentinel knows the replica and the two
   * other sentinels: before that, a sentinel could not fail over.
   */
  async start(): Promise<void> {
    const { ports } = this;
    this.primary = await spawnRedis({
      appendOnly: true,
      appendFsync: 'always',
      port: ports.primary,
      dir: this.primaryDir,
    });
    this.replica = await spawnRedis({
      appendOnly: true,
      port: ports.replica,
      replicaOf: ports.primary,
    });
    this.sentinels = await Promise.all(
      ports.sentinels.map((port) =>
        spawnSentinel({
          port,
          primary: { name: PRIMARY_NAME, port: ports.primary },
          quorum: 2,
          downAfterMs: DOWN_AFTER_MS,
          failoverTimeoutMs: FAILOVER_TIMEOUT_MS,
        }),
      ),
    );
    await vi.waitFor(
      async () => {
        const link = await this.onServer(ports.replica, (r) => r.info('replication'));
        if (!link.includes('master_link_status:up')) throw new Error('the replica is not in sync');
        for (const port of ports.sentinels) {
          const master = await this.primaryAsSeenBy(port);
          if (master['num-slaves'] !== '1' || master['num-other-sentinels'] !== '2') {
            throw new Error(
              `sentinel ${port} does not know the replica and the other sentinels yet`,
            );
          }
        }
      },
      { timeout: 30_000, interval: 250 },
    );
  }

  /** SIGKILL, as a crash. */
  async killPrimary(): Promise<void> {
    await this.primary?.kill();
  }

  /** The port of the primary every sentinel names now. */
  async primaryPort(): Promise<number | undefined> {
    const ports = await Promise.all(
      this.ports.sentinels.map((port) =>
        this.onServer(port, (r) => r.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', PRIMARY_NAME)),
      ),
    );
    const named = new Set(ports.map((address) => Number((address as string[])[1])));
    return named.size === 1 ? [...named][0] : undefined;
  }

  /** Runs `query` on a short-lived connection to the Redis or sentinel on `port`. */
  async onServer<T>(port: number, query: (redis: Redis) => Promise<T>): Promise<T> {
    const redis = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
    });
    redis.on('error', () => undefined);
    try {
      await redis.connect();
      return await query(redis);
    } finally {
      redis.disconnect();
    }
  }

  /**
   * What the killed primary had acknowledged: its AOF, loaded by a Redis of its own on `port`.
   * The primary wrote its AOF before each reply (`appendfsync always`), so a reply it sent is in
   * this copy.
   */
  async acknowledged<T>(port: number, query: (redis: Redis) => Promise<T>): Promise<T> {
    const copy = await spawnRedis({ appendOnly: true, port, dir: this.primaryDir });
    try {
      return await this.onServer(port, query);
    } finally {
      await copy.stop();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.sentinels.map((sentinel) => sentinel.stop()));
    await Promise.all([this.primary?.stop(), this.replica?.stop()]);
    rmSync(this.primaryDir, { recursive: true, force: true });
  }

  private async primaryAsSeenBy(port: number): Promise<Record<string, string>> {
    const fields = (await this.onServer(port, (r) =>
      r.call('SENTINEL', 'MASTER', PRIMARY_NAME),
    )) as string[];
    const record: Record<string, string> = {};
    for (let i = 0; i + 1 < fields.length; i += 2) record[fields[i] ?? ''] = fields[i + 1] ?? '';
    return record;
  }
}
