import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import {
  createLogger,
  createRedis,
  LuaScripts,
  OrphanSweeper,
  RedisKeys,
  startOperatorServer,
  type Logger,
  type OperatorServer,
} from '@voicegw/shared';
import { createEventBus, type BusEvent, type EventBus } from '@voicegw/shared/bus';
import type { DispatcherConfig } from './config.js';
import { AppDirectory } from '../domain/app-directory.js';
import { AppStore } from '../domain/apps.js';
import type { Resolver } from '../domain/webhook-url.js';
import { AppHealth } from './app-health.js';
import { WebhookDispatcher } from './dispatcher.js';
import { subscribeLaneWakeups } from './lane-wakeups.js';
import { Lanes } from './lanes.js';
import { Limit } from './limit.js';
import { DispatcherMetrics } from './metrics.js';
import { parseSchedule, RetryPolicy } from './schedule.js';
import { WebhookSender } from './sender.js';

export interface DispatcherOptions {
  /** The process logger; without one the dispatcher logs at LOG_LEVEL to stdout. */
  readonly logger?: Logger;
  /** Host name → addresses for webhook hosts (tests); the system resolver by default. */
  readonly resolve?: Resolver;
}

export interface Dispatcher {
  readonly id: string;
  readonly bus: EventBus;
  readonly metrics: DispatcherMetrics;
  /** Port of /metrics and /health. */
  readonly metricsPort: number;
  /** Stops reading, lets attempts in flight finish, releases its shards. */
  close(): Promise<void>;
}

const ACK_RETRIES = [50, 200, 1000];

/** Starts a webhook dispatcher: the event bus consumer, the per-app queues, /metrics. */
export async function startDispatcher(
  config: DispatcherConfig,
  options: DispatcherOptions = {},
): Promise<Dispatcher> {
  const base =
    options.logger ??
    createLogger({ name: 'dispatcher', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
  const id = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  const log = base.child({ dispatcher: id });
  const redis = createRedis(config.redisEndpoint, {
    name: 'dispatcher',
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
  });
  redis.on('error', (err) => log.warn({ err }, 'redis connection error'));
  const keys = new RedisKeys(config.REDIS_PREFIX);
  const scripts = new LuaScripts(redis);
  const apps = new AppDirectory(new AppStore(redis, keys), keys, config.APP_CACHE_TTL_MS);
  await apps.start(config.redisEndpoint, (err) => log.warn({ err }, 'apps channel error'));

  const bus = createEventBus(config, {
    redisEndpoint: config.redisEndpoint,
    redis,
    keys,
    dispatcherId: id,
    log,
  });
  const sender = new WebhookSender({
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
    allowPrivate: config.ALLOW_LOCALHOST_WEBHOOKS,
    connectionsPerOrigin: config.WEBHOOK_CONNECTIONS_PER_ORIGIN,
    ...(options.resolve ? { resolve: options.resolve } : {}),
  });
  const stats = { source: undefined as WebhookDispatcher | undefined };
  const metrics = new DispatcherMetrics(
    () => stats.source?.stats() ?? { events: 0, apps: 0, queued: 0, partitions: 0 },
  );
  const ack = async (event: BusEvent): Promise<void> => {
    for (let attempt = 0; ; attempt++) {
      try {
        await bus.ack(event);
        return;
      } catch (err) {
        const delay = ACK_RETRIES[attempt];
        if (delay === undefined) {
          // Left unacknowledged: its shard's next holder delivers it again (same webhook-id).
          log.warn({ err, id: event.id, partition: event.partition }, 'acknowledging failed');
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };
  const dispatcher = new WebhookDispatcher({
    apps,
    sender,
    health: new AppHealth(redis, scripts, keys, config.WEBHOOK_DISABLE_AFTER_MS, log),
    metrics,
    limit: new Limit(config.WEBHOOK_MAX_IN_FLIGHT),
    log,
    lanes: new Lanes(redis, scripts, keys, config.DEAD_LETTER_MAX),
    policy: new RetryPolicy({
      schedule: parseSchedule(config.WEBHOOK_RETRY_SCHEDULE),
      jitter: config.WEBHOOK_RETRY_JITTER,
      retryAfterMaxMs: config.WEBHOOK_RETRY_AFTER_MAX_MS,
    }),
    queuePerApp: config.WEBHOOK_QUEUE_PER_APP,
    pollIntervalMs: config.LANE_POLL_INTERVAL_MS,
    ack,
  });
  stats.source = dispatcher;
  const wakeups = await subscribeLaneWakeups(
    config.redisEndpoint,
    keys,
    () => dispatcher.wake(),
    (err) => log.warn({ err }, 'lanes channel error'),
  );
  // Answers a dead media node's commands and ends its calls even when no media node survives.
  const sweeper = new OrphanSweeper(
    { redis, keys, scripts, log, sessionGraceMs: config.SESSION_GRACE_SEC * 1000 },
    {
      intervalMs: config.SWEEP_INTERVAL_MS,
      heartbeatTtlMs: config.HEARTBEAT_TTL_MS,
      orphanTimeoutMs: config.ORPHAN_TIMEOUT_MS,
    },
  );

  let server: OperatorServer | undefined;
  try {
    server = await startOperatorServer(
      metrics.registry,
      () => {
        const ok = redis.status === 'ready';
        const body = {
          status: ok ? 'ok' : 'redis_unreachable',
          partitions: bus.owned(),
          routing: bus.routing(),
        };
        return { ok, body };
      },
      { host: config.DISPATCHER_HOST, port: config.DISPATCHER_METRICS_PORT },
      log,
    );
    await bus.start(dispatcher);
  } catch (err) {
    dispatcher.stop();
    wakeups.disconnect();
    await server?.close();
    await Promise.allSettled([sender.close(), apps.stop()]);
    redis.disconnect();
    throw err;
  }
  sweeper.start();
  log.info({ metrics_port: server.port, bus: config.EVENT_BUS }, 'dispatcher started');

  const metricsServer = server;
  return {
    id,
    bus,
    metrics,
    metricsPort: server.port,
    close: async () => {
      await bus.stop();
      dispatcher.stop();
      await Promise.allSettled([
        wakeups.quit(),
        sweeper.stop(),
        sender.close(),
        apps.stop(),
        metricsServer.close(),
      ]);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
