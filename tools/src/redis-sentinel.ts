import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { redisSentinelAvailable, redisSentinelMissingMessage } from './provision.js';
import { freePort } from './ports.js';
import { stopChild, waitForReady } from './redis-server.js';

/** A redis-sentinel child process watching one primary on loopback, for tests of a failover. */
export interface SpawnedSentinel {
  readonly port: number;
  /** `127.0.0.1:<port>`, as REDIS_SENTINELS lists it. */
  readonly address: string;
  stop(): Promise<void>;
}

export interface SpawnSentinelOptions {
  /** The primary's name (`sentinel monitor <name>`), its loopback port and its password. */
  readonly primary: { readonly name: string; readonly port: number; readonly password?: string };
  /** The sentinel's own password (`requirepass`). */
  readonly password?: string;
  /** Sentinels that must agree the primary is down before a failover. */
  readonly quorum: number;
  /** Silence after which a sentinel takes the primary for down. */
  readonly downAfterMs: number;
  /** Bounds one failover attempt; a failed one is tried again after twice this. */
  readonly failoverTimeoutMs: number;
  readonly port?: number;
}

/**
 * Spawns redis-sentinel with a configuration file of its own (Sentinel rewrites it as it learns
 * replicas, other sentinels and failovers), ready once it monitors the primary. The test suite
 * provisions redis-sentinel (provision.ts); without it this fails with the command to get it.
 */
export async function spawnSentinel(options: SpawnSentinelOptions): Promise<SpawnedSentinel> {
  if (!redisSentinelAvailable()) throw new Error(redisSentinelMissingMessage());
  const port = options.port ?? (await freePort());
  const dir = mkdtempSync(join(tmpdir(), 'voicegw-sentinel-'));
  const { name } = options.primary;
  const file = join(dir, 'sentinel.conf');
  writeFileSync(
    file,
    [
      `port ${port}`,
      'bind 127.0.0.1',
      `dir ${dir}`,
      `sentinel monitor ${name} 127.0.0.1 ${options.primary.port} ${options.quorum}`,
      `sentinel down-after-milliseconds ${name} ${options.downAfterMs}`,
      `sentinel failover-timeout ${name} ${options.failoverTimeoutMs}`,
      `sentinel parallel-syncs ${name} 1`,
      ...(options.primary.password
        ? [`sentinel auth-pass ${name} ${options.primary.password}`]
        : []),
      ...(options.password ? [`requirepass ${options.password}`] : []),
      '',
    ].join('\n'),
  );
  const child = spawn('redis-sentinel', [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await waitForReady(child, 'redis-sentinel', port, `+monitor master ${name}`);
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    port,
    address: `127.0.0.1:${port}`,
    stop: async () => {
      await stopChild(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
