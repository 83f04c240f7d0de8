import {
  createMetricsRegistry,
  createRedis,
  LuaScripts,
  NodeRegistry,
  RedisKeys,
  SessionStore,
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
    nodes: NodeRegistry;
    sessions: SessionStore;
    metrics: Registry;
  }
}

export interface InfrastructureOptions {
  readonly config: ApiConfig;
}

/**
 * Redis, keys, scripts and the metrics registry: everything routes use. The events the api
 * causes (conference.*) are appended to the ingest stream by the Lua script that makes the
 * change, so a change is never saved without its event.
 */
export default fp<InfrastructureOptions>(
  async (app, { config }) => {
    // The commands of a turn's requests leave together, with their ScriptBatcher run.
    const redis = createRedis(config.redisEndpoint, {
      name: 'api',
      commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
      flush: 'turn',
    });
    // ioredis reconnects by itself; log instead of crashing on an unhandled 'error' event.
    redis.on('error', (err) => app.log.warn({ err }, 'redis connection error'));
    const keys = new RedisKeys(config.REDIS_PREFIX);

    app.decorate('config', config);
    app.decorate('redis', redis);
    app.decorate('keys', keys);
    app.decorate('scripts', new LuaScripts(redis));
    app.decorate('nodes', new NodeRegistry(redis, keys));
    app.decorate('sessions', new SessionStore(redis, keys));
    app.decorate('metrics', createMetricsRegistry('api'));

    app.addHook('onClose', async () => {
      await redis.quit().catch(() => redis.disconnect());
    });
  },
  { name: 'infrastructure' },
);
