// The gateway's processes as the launcher starts them (tools/src/launcher/), for tests of
// process faults: each a real child process whose exit a test can observe and assert on.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { expect, vi } from 'vitest';
import { childEnv, startChild, type Child } from '@voicegw/tools/launcher';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A child process of the gateway and how it ended, if it did. */
export class GatewayProcess {
  /** Exit code, or null while running (or killed by a signal: `signal` then says which). */
  code: number | null = null;
  signal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;
  readonly child: Child;

  constructor(name: string, script: string, env: Record<string, string>, index = 0) {
    let done!: () => void;
    this.exited = new Promise((resolve) => (done = resolve));
    this.child = startChild(
      name,
      resolve(ROOT, script),
      childEnv({ LOG_LEVEL: 'fatal', ...env }),
      (_name, code) => {
        this.code = code;
        this.signal = this.child.process.signalCode;
        done();
      },
      index,
    );
  }

  get alive(): boolean {
    return this.child.process.exitCode === null && this.child.process.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.process.kill(signal);
  }

  /** SIGTERM, then SIGKILL after 5 s (the launcher's stop). */
  stop(): Promise<void> {
    return this.child.stop();
  }
}

/** Polls `url` until it answers 200 (a process is up), within `ms`. */
export async function healthy(url: string, ms = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
      if (!res?.ok) throw new Error(`${url} not healthy within ${ms} ms`);
    },
    { timeout: ms, interval: 100 },
  );
}

/**
 * A Redis with AOF on a fixed port and a data folder of its own: a test stops or kills it and
 * starts it again on the same port with the same data. Its AOF is written before every reply
 * (`appendfsync always`): under production's `everysec` a SIGKILL while the disk is busy loses
 * up to 2 s of acknowledged writes (docs/operations.md, "Redis requirements"), which these tests
 * would read as the gateway's loss.
 */
export class RestartableRedis {
  readonly url: string;
  private readonly dir = mkdtempSync(join(tmpdir(), 'voicegw-restartable-redis-'));
  private server: SpawnedRedis | undefined;

  constructor(readonly port: number) {
    this.url = `redis://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    this.server = await spawnRedis({
      appendOnly: true,
      appendFsync: 'always',
      port: this.port,
      dir: this.dir,
    });
  }

  /** SIGTERM: Redis saves its AOF and exits. */
  async stop(): Promise<void> {
    await this.server?.stop();
  }

  /** SIGKILL, as a crash: what AOF has written survives. */
  async kill(): Promise<void> {
    await this.server?.kill();
  }

  /** Stops it for good and removes its data. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A running gateway's api and a simulator of its media node, by port. */
export interface RunningGateway {
  readonly api: number;
  readonly simHttp: number;
  readonly adminKey: string;
}

/**
 * Routes `did` to a new app through the api's admin API, calls it on the simulator and waits
 * until the api lists the session the media node made of the call, the app's only one: its id.
 */
export async function callThroughGateway(
  gateway: RunningGateway,
  appId: string,
  did: string,
): Promise<string> {
  const apiKey = 'k'.repeat(32);
  const admin = (method: string, path: string, body: unknown) =>
    fetch(`http://127.0.0.1:${gateway.api}/admin/apps/${appId}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-admin-api-key': gateway.adminKey },
      body: JSON.stringify(body),
    });
  expect((await admin('POST', '', { api_key: apiKey })).status).toBe(200);
  expect((await admin('PUT', '/dids', [did])).status).toBe(200);
  const call = await fetch(`http://127.0.0.1:${gateway.simHttp}/sim/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to: did, from: '0501234567' }),
  });
  expect(call.status).toBeLessThan(300);
  const { uuid } = (await call.json()) as { uuid: string };
  const headers = { 'x-app-id': appId, 'x-api-key': apiKey };
  const { session, listed } = await vi.waitFor(
    async () => {
      const res = await fetch(`http://127.0.0.1:${gateway.api}/api/v1/sessions`, { headers });
      const listed = ((await res.json()) as { sessions?: { session_uuid: string }[] }).sessions;
      const found = listed?.find((s) => s.session_uuid.endsWith(uuid));
      if (!found) throw new Error('the call did not become a session');
      return { session: found.session_uuid, listed: listed?.length };
    },
    { timeout: 10_000, interval: 100 },
  );
  expect(listed).toBe(1);
  return session;
}
