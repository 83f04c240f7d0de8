import {
  createEventPublisher,
  createMetricsRegistry,
  createRedis,
  LuaScripts,
  NodeRegistry,
  RedisKeys,
  SessionStore,
  type EventPublisher,
} from '@voicegw/shared';
import fp from 'fastify-plugin';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { ApiConfig } from '../config.js';

declare module 'fastify' {
  interface FastifyInstance {
    config: ApiConfig;
    redis: Redis;
    keys: RedisKeys;
    scripts: LuaScripts;
    events: EventPublisher;
    nodes: NodeRegistry;
    sessions: SessionStore;
    metrics: Registry;
  }
}

export interface InfrastructureOptions {
  readonly config: ApiConfig;
  /** Injected by tests and by the dispatcher entrypoint; built from config otherwise. */
  readonly events?: EventPublisher;
}

/** Redis, keys, scripts, the event publisher and the metrics registry: everything routes use. */
export default fp<InfrastructureOptions>(
  async (app, { config, events }) => {
    const redis = createRedis(config.REDIS_URL, {
      name: 'api',
      commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    });
    // ioredis reconnects by itself; log instead of crashing on an unhandled 'error' event.
    redis.on('error', (err) => app.log.warn({ err }, 'redis connection error'));
    const keys = new RedisKeys(config.REDIS_PREFIX);

    app.decorate('config', config);
    app.decorate('redis', redis);
    app.decorate('keys', keys);
    app.decorate('scripts', new LuaScripts(redis));
    app.decorate('events', events ?? createEventPublisher(config, redis));
    app.decorate('nodes', new NodeRegistry(redis, keys));
    app.decorate('sessions', new SessionStore(redis, keys));
    app.decorate('metrics', createMetricsRegistry('api'));

    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  },
  { name: 'infrastructure' },
);
