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
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { buildApp, type App } from '../src/app.js';
import { loadApiConfig, type ApiConfig } from '../src/config.js';
import { AppStore, type AppRecord } from '../src/domain/apps.js';

export const ADMIN_KEY = 'test-admin-key-0123456789';

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
  const config = loadApiConfig({
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: prefix,
    ADMIN_API_KEY: ADMIN_KEY,
    ALLOW_HTTP_WEBHOOKS: 'true',
    ALLOW_LOCALHOST_WEBHOOKS: 'true',
    ...env,
  });
  const app = await buildApp({ config });
  await app.ready();
  const redis = new Redis(config.REDIS_URL);
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

export const json = { 'content-type': 'application/json' } as const;
