import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  manualRedisMessage,
  probePlatform,
  redisServerAvailable,
  RedisProvisioningError,
} from './provision.js';
import { freePort } from './ports.js';

/** A redis-server child process on a free loopback port, for tests and `npm start`. */
export interface SpawnedRedis {
  readonly url: string;
  readonly port: number;
  stop(): Promise<void>;
  /**
   * SIGKILL, as a crash: what AOF has written survives (tests of a Redis restart; see
   * `appendFsync` for what it may not have written yet).
   */
  kill(): Promise<void>;
}

export interface SpawnRedisOptions {
  /** Append-only persistence, as production runs it; tests turn it off for speed. */
  readonly appendOnly: boolean;
  /**
   * `appendfsync` with `appendOnly`: `everysec` (the default, as production runs it) or
   * `always`. Under `everysec` Redis holds back its AOF write for up to 2 s while a background
   * fsync is slow (a busy disk) and replies meanwhile, so a SIGKILL can lose writes it
   * acknowledged; tests that assert a crash loses nothing acknowledged use `always`.
   */
  readonly appendFsync?: 'everysec' | 'always';
  readonly port?: number;
  readonly dir?: string;
  /**
   * `hz`, how often Redis runs its background cron (Redis's default is 10); the benchmark runs
   * the value production is advised to (docs/operations.md, "Redis requirements").
   */
  readonly hz?: number;
  /** A replica of the Redis on this loopback port (`--replicaof`), for tests of a failover. */
  readonly replicaOf?: number;
  /** `requirepass`, and `masterauth` for a replica of a Redis with the same password. */
  readonly password?: string;
  /** A process group of its own, so that a signal to the caller's group does not reach it. */
  readonly detached?: boolean;
  /**
   * Ends when the calling process does, however it ends (`npm start`): redis-server runs under
   * a small Node wrapper that holds an IPC channel to the caller (launcher/tethered-exec.ts).
   */
  readonly tethered?: boolean;
}

const TETHERED_EXEC = new URL('./launcher/tethered-exec.ts', import.meta.url).pathname;

/** redis-server could not bind its port: another process holds it. */
export class PortTakenError extends Error {}

const PORT_ATTEMPTS = 3;

/** Spawns redis-server; callers provision it first (provision.ts), or this fails with the command to get it. */
export async function spawnRedis(options: SpawnRedisOptions): Promise<SpawnedRedis> {
  if (!redisServerAvailable()) {
    throw new RedisProvisioningError(manualRedisMessage(probePlatform(false)));
  }
  if (options.port !== undefined) return startRedis(options, options.port);
  // A port free when probed can be bound by another process before redis-server binds it.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startRedis(options, await freePort());
    } catch (error) {
      if (!(error instanceof PortTakenError) || attempt === PORT_ATTEMPTS) throw error;
    }
  }
}

async function startRedis(options: SpawnRedisOptions, port: number): Promise<SpawnedRedis> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'voicegw-redis-'));
  const ownsDir = options.dir === undefined;
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    options.appendOnly ? 'yes' : 'no',
    '--appendfsync',
    options.appendFsync ?? 'everysec',
    ...(options.hz === undefined ? [] : ['--hz', String(options.hz)]),
    ...(options.replicaOf === undefined
      ? []
      : ['--replicaof', '127.0.0.1', String(options.replicaOf)]),
    ...(options.password === undefined
      ? []
      : ['--requirepass', options.password, '--masterauth', options.password]),
  ];
  const child = options.tethered
    ? spawn(process.execPath, ['--import', 'tsx', TETHERED_EXEC, 'redis-server', ...args], {
        stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
        detached: options.detached ?? false,
      })
    : spawn('redis-server', args, {
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: options.detached ?? false,
      });
  try {
    await waitForReady(child, 'redis-server', port, 'Ready to accept connections');
  } catch (error) {
    if (ownsDir) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: async () => {
      await stopChild(child);
      if (ownsDir) rmSync(dir, { recursive: true, force: true });
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Waits for `program` to print `ready`; rejects with its output if it exits or takes 10 s. */
export async function waitForReady(
  child: ChildProcess,
  program: string,
  port: number,
  ready: string,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${program} on port ${port} did not start in 10 s:\n${output}`));
    }, 10_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes(ready)) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      const message = `${program} exited with code ${code ?? 'null'}:\n${output}`;
      reject(
        output.includes('Address already in use')
          ? new PortTakenError(message)
          : new Error(message),
      );
    });
  });
  child.stdout?.resume();
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
