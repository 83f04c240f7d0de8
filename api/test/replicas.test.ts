import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freePort, stopChild } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ADMIN_KEY, useApi } from './helpers.js';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Counted from the moment the change was answered by the replica that made it. */
const DEADLINE_MS = 100;

const PREFIX = `t${randomBytes(4).toString('hex')}`;
const local = useApi({ REDIS_PREFIX: PREFIX });
let localUrl: string;
let replica: ChildProcess;
let replicaUrl: string;

/**
 * A second api process on the same Redis and key prefix, as a second replica behind a load
 * balancer would run. node --import tsx (what `npx tsx` runs) so that stopping it stops it all.
 */
async function startReplica(prefix: string, redisUrl: string): Promise<void> {
  const port = await freePort();
  replicaUrl = `http://127.0.0.1:${port}`;
  let output = '';
  replica = spawn(process.execPath, ['--import', 'tsx', 'api/src/server.ts'], {
    cwd: REPO_ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_URL: redisUrl,
      REDIS_PREFIX: prefix,
      ADMIN_API_KEY: ADMIN_KEY,
      LOG_LEVEL: 'silent',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  replica.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  replica.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await vi.waitFor(
    async () => {
      if (replica.exitCode !== null) throw new Error(`replica exited:\n${output}`);
      const health = await fetch(`${replicaUrl}/health`).catch(() => undefined);
      if (health?.status !== 200) throw new Error(`replica did not answer /health:\n${output}`);
    },
    { timeout: 20_000, interval: 50 },
  );
}

beforeAll(async () => {
  localUrl = await local.app.listen({ port: 0, host: '127.0.0.1' });
  await startReplica(PREFIX, inject('redisUrl'));
}, 30_000);
afterAll(async () => {
  if (replica) await stopChild(replica);
});

const admin = (base: string, method: 'POST' | 'DELETE', appId: string, body?: unknown) =>
  fetch(`${base}/admin/apps/${appId}`, {
    method,
    headers: {
      'x-admin-api-key': ADMIN_KEY,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const listRooms = (base: string, appId: string, apiKey: string) =>
  fetch(`${base}/api/v1/conferences`, { headers: { 'x-app-id': appId, 'x-api-key': apiKey } });

async function createApp(base: string): Promise<{ appId: string; apiKey: string }> {
  const appId = `app_${randomBytes(4).toString('hex')}`;
  const apiKey = `key-${randomBytes(12).toString('hex')}`;
  const res = await admin(base, 'POST', appId, { api_key: apiKey, rate_limit: 10_000 });
  expect(res.status).toBe(200);
  return { appId, apiKey };
}

/**
 * How long after `since` the first request that `base` refuses with 401 was sent. Requests go
 * back to back over real HTTP; the send time, not the answer time, is measured so that a slow
 * machine's request latency does not count as propagation delay.
 */
async function msUntilRefused(base: string, appId: string, apiKey: string, since: number) {
  for (;;) {
    const sentAt = performance.now() - since;
    const res = await listRooms(base, appId, apiKey);
    await res.body?.cancel();
    if (res.status === 401) return sentAt;
    expect(res.status).toBe(200);
    if (sentAt > 2000) return sentAt;
  }
}

describe('two api processes on one Redis', () => {
  it(`an app deleted through one is refused by the other within ${DEADLINE_MS} ms`, async () => {
    const { appId, apiKey } = await createApp(localUrl);
    // The replica authenticates once, so the app is in its in-process cache.
    expect((await listRooms(replicaUrl, appId, apiKey)).status).toBe(200);

    expect((await admin(localUrl, 'DELETE', appId)).status).toBe(200);
    const elapsed = await msUntilRefused(replicaUrl, appId, apiKey, performance.now());
    expect(elapsed).toBeLessThanOrEqual(DEADLINE_MS);
  });

  it(`an app deleted through the other is refused here within ${DEADLINE_MS} ms`, async () => {
    const { appId, apiKey } = await createApp(replicaUrl);
    expect((await listRooms(localUrl, appId, apiKey)).status).toBe(200);

    expect((await admin(replicaUrl, 'DELETE', appId)).status).toBe(200);
    const elapsed = await msUntilRefused(localUrl, appId, apiKey, performance.now());
    expect(elapsed).toBeLessThanOrEqual(DEADLINE_MS);
  });

  it(`a key rotated through one is refused by the other within ${DEADLINE_MS} ms`, async () => {
    const { appId, apiKey } = await createApp(localUrl);
    expect((await listRooms(replicaUrl, appId, apiKey)).status).toBe(200);

    const newKey = `new-${randomBytes(12).toString('hex')}`;
    expect((await admin(localUrl, 'POST', appId, { api_key: newKey })).status).toBe(200);
    const elapsed = await msUntilRefused(replicaUrl, appId, apiKey, performance.now());
    expect(elapsed).toBeLessThanOrEqual(DEADLINE_MS);
    expect((await listRooms(replicaUrl, appId, newKey)).status).toBe(200);
  });
});
