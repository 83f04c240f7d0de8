import { randomBytes, randomUUID } from 'node:crypto';
import {
  COMMAND_FIELD,
  decodeCommand,
  EVENT_FIELDS,
  NodeRegistry,
  RedisKeys,
  SessionStore,
  sessionId,
  type CommandMessage,
  type FreeswitchState,
  type EventEnvelope,
  type NewSession,
} from '@voicegw/shared';
import type { InjectOptions } from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject } from 'vitest';
import { slot } from '@voicegw/tools';
import { buildApp, type App } from '../src/app.js';
import { loadApiConfig, type ApiConfig } from '../src/config.js';
import { AppStore, type AppRecord } from '../src/domain/apps.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';
export const json = { 'content-type': 'application/json' } as const;

/** One api instance on the test Redis, isolated by a key prefix of its own. */
export interface TestApi {
  readonly app: App;
  readonly config: ApiConfig;
  /** A separate connection for seeding and inspecting Redis. */
  readonly redis: Redis;
  readonly keys: RedisKeys;
  close(): Promise<void>;
}

export async function startApi(env: Record<string, string> = {}): Promise<TestApi> {
  const prefix = env.REDIS_PREFIX ?? `t${randomBytes(4).toString('hex')}`;
  const url = env.REDIS_URL ?? inject('redisUrl');
  const config = loadApiConfig({
    REDIS_URL: url,
    REDIS_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN_KEY,
    ALLOW_HTTP_WEBHOOKS: 'true',
    ALLOW_LOCALHOST_WEBHOOKS: 'true',
    ...env,
  });
  const app = await buildApp({ config });
  await app.ready();
  const redis = new Redis(url);
  redis.on('error', () => undefined); // tests that stop Redis on purpose must not crash the worker
  return {
    app,
    config,
    redis,
    keys: new RedisKeys(prefix),
    close: async () => {
      await app.close();
      redis.disconnect();
    },
  };
}

/**
 * The suite's api: started in `beforeAll`, closed in `afterAll`. What it returns may be read
 * inside tests and hooks registered after it (vitest runs `beforeAll` hooks in order).
 */
export function useApi(env: Record<string, string> | (() => Record<string, string>) = {}): TestApi {
  const api = slot<TestApi>('useApi()');
  beforeAll(async () => api.set(await startApi(typeof env === 'function' ? env() : env)));
  afterAll(() => api.value.close());
  return api.value;
}

/** An api of a single test's own (to seed nodes or apps that the suite's api must not see). */
export async function withApi<T>(
  env: Record<string, string>,
  run: (api: TestApi) => Promise<T>,
): Promise<T> {
  const api = await startApi(env);
  try {
    return await run(api);
  } finally {
    await api.close();
  }
}

export interface TestTenant {
  readonly appId: string;
  readonly apiKey: string;
  /** Headers that authenticate as this app. */
  readonly headers: Record<string, string>;
}

/** Creates an application straight in the store (the admin API has its own tests). */
export async function createTenant(
  api: TestApi,
  overrides: Partial<AppRecord> = {},
): Promise<TestTenant> {
  const appId = overrides.app_id ?? `app_${randomBytes(4).toString('hex')}`;
  const apiKey = overrides.api_key ?? `key-${randomBytes(12).toString('hex')}`;
  await new AppStore(api.redis, api.keys).save({
    app_id: appId,
    webhook_url: '',
    api_key: apiKey,
    rate_limit: 10_000,
    events: [],
    webhook_secret: `whsec_${randomBytes(24).toString('base64')}`,
    created_at: new Date().toISOString(),
    ...overrides,
  });
  return { appId, apiKey, headers: { 'x-app-id': appId, 'x-api-key': apiKey } };
}

/** The suite's tenant on `api` (from useApi), created in `beforeAll`. */
export function useTenant(api: TestApi, overrides: Partial<AppRecord> = {}): TestTenant {
  const tenant = slot<TestTenant>('useTenant()');
  beforeAll(async () => tenant.set(await createTenant(api, overrides)));
  return tenant.value;
}

/** An admin API request: `body` is sent as JSON, `raw` as it is. */
export function adminRequest(
  api: TestApi,
  method: NonNullable<InjectOptions['method']>,
  url: string,
  body?: unknown,
  raw?: string,
) {
  const payload = raw ?? (body === undefined ? undefined : JSON.stringify(body));
  return api.app.inject({
    method,
    url,
    headers: { 'x-admin-api-key': ADMIN_KEY, ...(payload === undefined ? {} : json) },
    ...(payload === undefined ? {} : { payload }),
  });
}

/** Announces a live media node (as a media node's heartbeat would) and returns its prefix. */
export async function liveNode(
  api: TestApi,
  beat: Partial<{
    capacity: number;
    active_sessions: number;
    outbound_capacity: number;
    draining: boolean;
    freeswitch: FreeswitchState;
  }> = {},
  name = `node-${randomUUID()}`,
): Promise<string> {
  const registry = new NodeRegistry(api.redis, api.keys);
  const prefix = await registry.claimPrefix(name);
  await registry.heartbeat(
    prefix,
    { name, capacity: 100, active_sessions: 0, outbound_capacity: 100, draining: false, ...beat },
    60_000,
  );
  return prefix;
}

/** A live media node announced for the suite (see liveNode). */
export interface TestNode {
  readonly prefix: string;
}

/** The suite's live media node on `api` (from useApi), announced in `beforeAll`. */
export function useLiveNode(api: TestApi): TestNode {
  const node = slot<TestNode>('useLiveNode()');
  beforeAll(async () => node.set({ prefix: await liveNode(api) }));
  return node.value;
}

/**
 * The suite's api with a tenant and a live media node on it (useApi, useTenant, useLiveNode in
 * that order): what most route tests start from.
 */
export function useApiWithNode(env: Record<string, string> = {}): {
  api: TestApi;
  tenant: TestTenant;
  node: TestNode;
} {
  const api = useApi(env);
  return { api, tenant: useTenant(api), node: useLiveNode(api) };
}

/** A request to the api as `tenant`: `body` is sent as JSON. */
export function tenantRequest(
  api: TestApi,
  tenant: TestTenant,
  method: NonNullable<InjectOptions['method']>,
  url: string,
  body?: unknown,
) {
  return api.app.inject({
    method,
    url,
    headers: { ...tenant.headers, ...(body === undefined ? {} : json) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

/** POSTs `body` as JSON to `url` with `tenant`'s app id but no API key: answered 401. */
export async function expectMissingApiKey(
  api: TestApi,
  tenant: TestTenant,
  url: string,
  body: unknown,
): Promise<void> {
  const res = await api.app.inject({
    method: 'POST',
    url,
    headers: { 'x-app-id': tenant.appId, ...json },
    payload: JSON.stringify(body),
  });
  expect(res.statusCode).toBe(401);
  expect(res.json()).toEqual({ success: false, error: 'Missing API key', code: 'missing_api_key' });
}

/** Creates a conference room as `tenant` (answered 201): its id. */
export async function createRoom(api: TestApi, tenant: TestTenant, name: string): Promise<string> {
  const res = await tenantRequest(api, tenant, 'POST', '/api/v1/conferences', { name });
  expect(res.statusCode).toBe(201);
  return res.json<{ room_id: string }>().room_id;
}

/** Seeds a live session (as a media node does for an inbound call) and returns its id. */
export async function seedSession(
  api: TestApi,
  tenant: TestTenant,
  nodePrefix: string,
  fields: Partial<NewSession> = {},
): Promise<string> {
  const id = sessionId(nodePrefix, randomUUID());
  await new SessionStore(api.redis, api.keys).create(id, {
    app_id: tenant.appId,
    node: nodePrefix,
    direction: 'inbound',
    caller_id: '0501234567',
    did: '0731234567',
    ...fields,
  });
  return id;
}

export async function commandsFor(api: TestApi, nodePrefix: string): Promise<CommandMessage[]> {
  const entries = await api.redis.xrange(api.keys.commandStream(nodePrefix), '-', '+');
  return entries.map(([, fields]) =>
    decodeCommand(fields[fields.indexOf(COMMAND_FIELD) + 1] ?? ''),
  );
}

export async function publishedEvents(api: TestApi): Promise<EventEnvelope[]> {
  const entries = await api.redis.xrange(api.keys.events(), '-', '+');
  return entries.map(
    ([, fields]) =>
      JSON.parse(fields[fields.indexOf(EVENT_FIELDS.body) + 1] ?? '') as EventEnvelope,
  );
}
