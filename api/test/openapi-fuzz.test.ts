import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { freePort, stopChild } from '@voicegw/tools';
import { errorCode, ERRORS, type ErrorName } from '@voicegw/api';
import fc from 'fast-check';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { OPENAPI_FILE } from '@voicegw/tools/generate';
import {
  ADMIN_KEY,
  createTenant,
  liveNode,
  seedSession,
  useApi,
  type TestTenant,
} from './helpers.js';
import {
  bodyFor,
  headersFor,
  operationsOf,
  pathValue,
  queryFor,
  type Operation,
} from './openapi-fuzz.js';

/**
 * Property-based fuzzing of every operation in docs/openapi.json against a real api process over
 * HTTP, on the test Redis: no input may answer a 5xx other than a documented 503, every error has
 * the contract's `{success: false, error, code}` shape with a catalogue code of its status, and
 * the api process is still up at the end.
 * FUZZ_RUNS sets the number of requests (a long run: FUZZ_RUNS=100000); the default keeps CI
 * short.
 */
// A test knob, not gateway configuration: the gateway's own variables go through its schemas.
const RUNS = Number(process.env.FUZZ_RUNS ?? 600);
const SERVER = fileURLToPath(new URL('../src/server.ts', import.meta.url));
const operations = operationsOf(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));
/** The status of every code: an answer's code must be one of its status. */
const STATUS_OF = new Map<string, number>(
  (Object.keys(ERRORS) as ErrorName[]).map((name) => [errorCode(name), ERRORS[name].status]),
);

/** Seeds Redis under the api process's prefix: its tenant, node, sessions and room. */
const PREFIX = `fuzz${randomBytes(4).toString('hex')}`;
const seeder = useApi({ REDIS_PREFIX: PREFIX });
let api: ChildProcess;
let origin: string;
const output: string[] = [];
/** Answers by status, printed at the end: what the run covered. */
const statuses = new Map<number, number>();
let fixture: {
  tenant: TestTenant;
  other: TestTenant;
  session: string;
  foreignSession: string;
  room: string;
};

const NODE_NAME = `fuzz-node-${randomUUID()}`;
let beatAt = 0;

/** The seeded node's heartbeat lasts 60 s; a long run renews it, or its sessions would vanish. */
async function keepNodeAlive(): Promise<string> {
  beatAt = Date.now();
  return liveNode(seeder, {}, NODE_NAME);
}

/** The tenant and its objects, written again after a request changed or deleted them. */
async function restore(): Promise<void> {
  const { tenant } = fixture;
  await createTenant(seeder, { app_id: tenant.appId, api_key: tenant.apiKey });
  await seeder.redis.hset(seeder.keys.room(fixture.room), {
    app_id: tenant.appId,
    name: `fuzz-${fixture.room.slice(-8)}`,
  });
}

beforeAll(async () => {
  const node = await keepNodeAlive();
  const tenant = await createTenant(seeder);
  const other = await createTenant(seeder);
  fixture = {
    tenant,
    other,
    session: await seedSession(seeder, tenant, node),
    foreignSession: await seedSession(seeder, other, node),
    room: `${node}-room-${randomUUID()}`,
  };
  await restore();

  const port = await freePort();
  origin = `http://127.0.0.1:${port}`;
  api = spawn(process.execPath, ['--import', 'tsx', SERVER], {
    env: {
      ...process.env,
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: PREFIX,
      ADMIN_API_KEY: ADMIN_KEY,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      APP_CACHE_TTL_MS: '0',
      RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: '1000000',
      ALLOW_HTTP_WEBHOOKS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  for (const stream of [api.stdout, api.stderr]) {
    stream?.on('data', (chunk: Buffer) => output.push(chunk.toString()));
  }
  await vi.waitFor(
    async () => {
      if (api.exitCode !== null) throw new Error(`the api exited:\n${output.join('')}`);
      expect(await status('GET', '/health')).toBe(200);
    },
    { timeout: 20_000, interval: 100 },
  );
}, 30_000);

afterAll(async () => {
  const counts = [...statuses].sort(([a], [b]) => a - b).map(([s, n]) => `${s}: ${n}`);
  console.log(`fuzz answers by status: ${counts.join(', ')}`);
  if (api) await stopChild(api);
});

async function status(method: string, path: string): Promise<number> {
  const res = await request(`${origin}${path}`, { method });
  await res.body.dump();
  return res.statusCode;
}

/** Valid values for each path parameter name the document uses. */
function validFor(name: string): string[] {
  const { tenant, other, session, foreignSession, room } = fixture;
  switch (name) {
    case 'app_id':
      return [tenant.appId, other.appId, 'fuzz_unknown'];
    case 'uuid':
    case 'session_uuid':
      return [session, foreignSession, `${session.slice(0, 5)}-${randomUUID()}`];
    case 'room_id':
      return [room, `${room.slice(0, 5)}-room-${randomUUID()}`];
    case 'number':
      return ['0722000000', '0501234567'];
    default:
      return [randomUUID()];
  }
}

function authFor(operation: Operation): fc.Arbitrary<Record<string, string>> {
  const { tenant, other } = fixture;
  const valid = operation.security === 'admin' ? { 'x-admin-api-key': ADMIN_KEY } : tenant.headers;
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(valid) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        {},
        { 'x-admin-api-key': 'wrong-admin-key-0123456789' },
        { 'x-app-id': tenant.appId },
        { 'x-app-id': tenant.appId, 'x-api-key': 'wrong' },
        { 'x-app-id': 'bad id!', 'x-api-key': tenant.apiKey },
        { 'x-app-id': other.appId, 'x-api-key': tenant.apiKey },
        { 'x-app-id': 'a'.repeat(4000), 'x-api-key': 'b'.repeat(4000) },
        other.headers,
      ),
    },
  );
}

function requestFor(operation: Operation) {
  const names = [...operation.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? '');
  return fc.record({
    params: fc.tuple(...names.map((name) => pathValue(validFor(name)))),
    query: queryFor(operation),
    headers: headersFor(authFor(operation)),
    body:
      operation.body || operation.method !== 'GET'
        ? bodyFor(operation.body)
        : fc.constant(undefined),
  });
}

/** What makes an answer acceptable whatever was sent. */
function checkAnswer(operation: Operation, status: number, text: string): string | undefined {
  if (status < 400) return undefined;
  const isRecording = operation.path.includes('/recording/');
  // Expired or unknown recordings: 404 with no structured body, as the contract says.
  if (isRecording && status === 404 && text === '') return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return 'the error body is not JSON';
  }
  const { success, error, code } = (body ?? {}) as Record<string, unknown>;
  if (success !== false || typeof error !== 'string' || error === '') {
    return 'the error body is not {success: false, error, code}';
  }
  if (typeof code !== 'string' || STATUS_OF.get(code) !== status) {
    return `the code ${JSON.stringify(code)} is not a catalogue code of ${status}`;
  }
  if (status < 500) return undefined;
  const documented = operation.responses.some((r) => r === '503' || r === '5XX');
  if (status === 503 && documented) return undefined;
  return `answered ${status}`;
}

describe(`fuzzing every operation of docs/openapi.json (${RUNS} requests)`, () => {
  const perOperation = Math.max(5, Math.ceil(RUNS / operations.length));

  it.each(operations.map((op) => [`${op.method} ${op.path}`, op] as const))(
    '%s',
    async (_name, operation) => {
      await fc.assert(
        fc.asyncProperty(requestFor(operation), async (req) => {
          if (Date.now() - beatAt > 20_000) await keepNodeAlive();
          let path = operation.path;
          for (const value of req.params) path = path.replace(/\{\w+\}/, value);
          const res = await request(`${origin}${path}${req.query}`, {
            method: operation.method as 'GET',
            headers: req.headers,
            ...(req.body === undefined ? {} : { body: req.body }),
          });
          const text = await res.body.text();
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          const problem = checkAnswer(operation, res.statusCode, text);
          if (operation.method !== 'GET' && res.statusCode < 300) await restore();
          if (problem) {
            throw new Error(
              `${operation.method} ${path}${req.query} ${problem}: ${res.statusCode} ${text}\n` +
                output.join('').slice(-2000),
            );
          }
        }),
        { numRuns: perOperation },
      );
      expect(api.exitCode).toBeNull();
    },
    // About 40 ms a request on a loaded machine, with room for shrinking a failure.
    Math.max(120_000, perOperation * 100),
  );

  it('leaves the api and Redis up', async () => {
    expect(api.exitCode).toBeNull();
    expect(await status('GET', '/health')).toBe(200);
    expect(await seeder.redis.ping()).toBe('PONG');
  });
});
