import { randomBytes } from 'node:crypto';
import { hopTrace, RedisKeys } from '@voicegw/shared';
import { spawnRedis, type SpawnedRedis } from '@voicegw/tools';
import { Redis } from 'ioredis';
import { AppStore } from '@voicegw/api';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { EventWatcher, type GatewayEvents } from '../lib/event-watcher.js';
import { JsonClient } from '../lib/http-json.js';
import type { BenchOptions } from '../lib/options.js';
import {
  processActivity,
  runQueueWait,
  type Activity,
  type RunQueueWait,
} from '../lib/cpu-time.js';
import { redisCpuMs, redisPid } from '../lib/redis-info.js';
import { WebhookEvents } from '../lib/webhook-events.js';
import { HOP_SAMPLE } from '../servers/protocol.js';

const KEY_PREFIX = 'benchmn';
/** Redis's cron rate production is advised to run (docs/operations.md, "Redis requirements"). */
const PRODUCTION_REDIS_HZ = 2;

/** An app of the run: its credentials and the DID routed to it. */
export interface BenchApp {
  readonly appId: string;
  readonly did: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The media node, the api and what the benchmark needs to drive them. */
export interface Gateway {
  readonly node: ChildServer;
  readonly api: ChildServer;
  /** The webhook dispatcher, in production mode only. */
  readonly dispatcher: ChildServer | undefined;
  readonly prefix: string;
  readonly http: JsonClient;
  readonly apps: readonly BenchApp[];
  readonly events: GatewayEvents;
}

/**
 * How the gateway runs. `bench`, for the hot paths: the processes log errors only, no dispatcher
 * runs, and the load generator reads the events from the ingest stream. `production`, as a
 * deployment runs it: JSON logs at `info` (to a stdout the benchmark discards), the webhook
 * dispatcher, and every app's events delivered as webhooks to the load generator, which is the
 * applications.
 */
export type GatewayMode = 'bench' | 'production';

/** One figure for each process of the stack. */
export interface PerProcess<T> {
  readonly simulator: T;
  readonly node: T;
  readonly api: T;
  readonly dispatcher: T;
  readonly redis: T;
  readonly generator: T;
}

/** CPU time used so far by each process of the stack (ms); NaN for one not running. */
export type CpuSnapshot = PerProcess<number>;

/** Each process's activity so far (see `MediaStack.activity`); undefined for one not running. */
export type ActivitySnapshot = PerProcess<Activity | undefined>;

/** Each process's run-queue wait so far; undefined for one not running. */
export type WaitSnapshot = PerProcess<RunQueueWait | undefined>;

/**
 * Redis (AOF everysec and hz 2, as in production) and the simulator first: the baselines run against
 * the simulator alone. `startGateway` then adds one media node and the api, each in a process
 * of its own, as `npm start` runs them; the load generator is this process.
 */
export class MediaStack {
  gateway: Gateway | undefined;
  readonly keys = new RedisKeys(KEY_PREFIX);
  private readonly children: ChildServer[] = [];

  private constructor(
    private readonly redisServer: SpawnedRedis,
    readonly redis: Redis,
    private readonly redisPid: number,
    readonly sim: ChildServer,
    readonly control: JsonClient,
    private readonly options: BenchOptions,
  ) {
    this.children.push(sim);
  }

  static async start(options: BenchOptions): Promise<MediaStack> {
    const redisServer = await spawnRedis({ appendOnly: true, hz: PRODUCTION_REDIS_HZ });
    const sim = await startChildServer({
      file: 'simulator-server.ts',
      cpuProfileDir: options.cpuProfileDir,
      execArgv: ['--expose-gc'],
    });
    const redis = new Redis(redisServer.url);
    return new MediaStack(
      redisServer,
      redis,
      await redisPid(redis),
      sim,
      new JsonClient(sim.origin),
      options,
    );
  }

  get eslPort(): number {
    return Number(this.sim.info.eslPort);
  }

  get eslPassword(): string {
    return this.sim.info.password ?? 'ClueCon';
  }

  /** `extraEnv`: more settings for the node and the api (the media-streams scenario's). */
  async startGateway(
    apps: number,
    capacity: number,
    extraEnv: Readonly<Record<string, string>> = {},
    mode: GatewayMode = 'bench',
  ): Promise<Gateway> {
    const production = mode === 'production';
    const env = {
      ...extraEnv,
      BENCH_REDIS_URL: this.redisServer.url,
      BENCH_REDIS_PREFIX: KEY_PREFIX,
      BENCH_HOP_SAMPLE: String(HOP_SAMPLE),
      ...(production ? { BENCH_LOG_LEVEL: 'info' } : {}),
    };
    hopTrace.enable(HOP_SAMPLE);
    const node = await startChildServer({
      file: 'media-node-server.ts',
      env: {
        ...env,
        BENCH_ESL_PORT: String(this.eslPort),
        BENCH_ESL_PASSWORD: this.eslPassword,
        BENCH_CAPACITY: String(capacity),
      },
      cpuProfileDir: this.options.cpuProfileDir,
      execArgv: ['--expose-gc'],
      discardStdout: production,
    });
    this.children.push(node);
    const api = await startChildServer({
      file: 'api-server.ts',
      env,
      cpuProfileDir: this.options.cpuProfileDir,
      discardStdout: production,
    });
    this.children.push(api);
    const webhooks = production ? await WebhookEvents.start() : undefined;
    const seeded = await this.seedApps(apps, webhooks?.url ?? '');
    const dispatcher = production
      ? await startChildServer({
          file: 'dispatcher-server.ts',
          env,
          cpuProfileDir: this.options.cpuProfileDir,
          discardStdout: true,
        })
      : undefined;
    if (dispatcher) this.children.push(dispatcher);
    this.gateway = {
      node,
      api,
      dispatcher,
      prefix: node.info.prefix ?? '',
      http: new JsonClient(api.origin),
      apps: seeded,
      events: webhooks ?? (await EventWatcher.start(this.redis.duplicate(), this.keys.events())),
    };
    return this.gateway;
  }

  /** Apps and their DIDs straight through the stores (as admin POST and PUT dids write them). */
  private async seedApps(count: number, webhookUrl: string): Promise<BenchApp[]> {
    const store = new AppStore(this.redis, this.keys);
    return Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const appId = `bench_mn_${i}`;
        const apiKey = `key-${randomBytes(16).toString('hex')}`;
        const did = `073${String(1_000_000 + i).padStart(7, '0')}`;
        await store.save({
          app_id: appId,
          webhook_url: webhookUrl,
          api_key: apiKey,
          rate_limit: 10_000,
          events: [],
          webhook_secret: `whsec_${randomBytes(24).toString('base64')}`,
          created_at: new Date().toISOString(),
        });
        await this.redis.hset(this.keys.didRoutes(), did, appId);
        return { appId, did, headers: { 'x-app-id': appId, 'x-api-key': apiKey } };
      }),
    );
  }

  async cpu(): Promise<CpuSnapshot> {
    const { user, system } = process.cpuUsage();
    return {
      simulator: this.sim.cpuMs() ?? Number.NaN,
      node: this.gateway?.node.cpuMs() ?? Number.NaN,
      api: this.gateway?.api.cpuMs() ?? Number.NaN,
      dispatcher: this.gateway?.dispatcher?.cpuMs() ?? Number.NaN,
      redis: await redisCpuMs(this.redis),
      generator: (user + system) / 1000,
    };
  }

  /**
   * Each process's CPU time (exact, every thread) and wake-ups so far, all from /proc: unlike
   * `cpu()` it sends Redis no command, so it can watch an idle stack without waking it.
   */
  activity(): ActivitySnapshot {
    const of = (child: ChildServer | undefined) => child && processActivity(child.pid);
    return {
      simulator: of(this.sim),
      node: of(this.gateway?.node),
      api: of(this.gateway?.api),
      dispatcher: of(this.gateway?.dispatcher),
      redis: processActivity(this.redisPid),
      generator: processActivity(process.pid),
    };
  }

  waits(): WaitSnapshot {
    return {
      simulator: runQueueWait(this.sim.pid),
      node: this.gateway && runQueueWait(this.gateway.node.pid),
      api: this.gateway && runQueueWait(this.gateway.api.pid),
      dispatcher: this.gateway?.dispatcher && runQueueWait(this.gateway.dispatcher.pid),
      redis: runQueueWait(this.redisPid),
      generator: runQueueWait(process.pid),
    };
  }

  async redisVersion(): Promise<string> {
    return /^redis_version:(\S+)/m.exec(await this.redis.info('server'))?.[1] ?? 'unknown';
  }

  async stop(): Promise<void> {
    await this.gateway?.events.stop();
    await this.gateway?.http.close();
    await this.control.close();
    for (const child of this.children.reverse()) await child.stop();
    this.redis.disconnect();
    await this.redisServer.stop();
  }
}

/** Mean wait for a CPU per wake-up (µs) of each process between two snapshots; NaN if unknown. */
export function waitPerRun(before: WaitSnapshot, after: WaitSnapshot): PerProcess<number> {
  return perProcess((k) => {
    const [a, b] = [before[k], after[k]];
    return a && b ? ((b.waitMs - a.waitMs) * 1000) / (b.runs - a.runs) : Number.NaN;
  });
}

/** CPU per operation (µs) of each process between two snapshots. */
export function cpuPerOp(before: CpuSnapshot, after: CpuSnapshot, ops: number): CpuSnapshot {
  return perProcess((k) => ((after[k] - before[k]) * 1000) / ops);
}

/** One figure for each process, made by `figure`. */
export function perProcess<T>(figure: (process: keyof PerProcess<T>) => T): PerProcess<T> {
  return {
    simulator: figure('simulator'),
    node: figure('node'),
    api: figure('api'),
    dispatcher: figure('dispatcher'),
    redis: figure('redis'),
    generator: figure('generator'),
  };
}
