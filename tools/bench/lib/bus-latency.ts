import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { AppStore } from '@voicegw/api';
import {
  createEventPublisher,
  RedisKeys,
  type EventPayload,
  type EventPublisher,
} from '@voicegw/shared';
import { spawnRedis } from '@voicegw/tools';
import { Redis } from 'ioredis';
import type { BusVariant } from './bus-variants.js';
import { startChildServer, type ChildServer } from './child-server.js';
import { processCpuMs } from './cpu-time.js';
import type { BenchOptions } from './options.js';
import { redisCpuMs } from './redis-info.js';
import { rotate, type HostRecord } from './rounds.js';
import { pacedTasks, stepPercentiles, type Recorder } from './task-load.js';
import { WebhookReceiver } from './webhook-receiver.js';
import { request } from 'undici';

/**
 * Events a second, as media nodes publish them in a quiet hour: the bus waits between events, so
 * what a consumer does while it waits (a fetch held at the broker, a heartbeat) shows in the tail.
 */
export const BUS_RATE = 100;
/** Apps the events go round robin over: one event per app a second, no app queues behind itself. */
const BUS_APPS = 100;
const RESULT_TIMEOUT_MS = 5000;
/** Seconds of the idle window after each run: the bus's cost when no event comes. */
const IDLE_SEC = 3;
/** The broker's process id on this machine, for its CPU figures (e.g. `pgrep -n java`). */
const BROKER_PID_ENV = 'BENCH_KAFKA_BROKER_PID';

/** CPU of the processes on the bus's path: µs per event, or ms per second idle. */
export interface BusCpu {
  readonly dispatcher: number;
  readonly redis: number;
  /** NaN: a Redis bus, or no BENCH_KAFKA_BROKER_PID. */
  readonly broker: number;
}

/** One bus in one round. */
export interface BusRun {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly completed: number;
  readonly failed: number;
  readonly perSec: number;
  readonly errors: readonly string[];
  readonly cpuUsPerEvent: BusCpu;
  readonly idleCpuMsPerSec: BusCpu;
  /**
   * Cores busy with other work during the measured window: the machine's busy time less that of
   * the dispatcher, Redis, the broker and this process. A shared machine's other work shows in
   * the tail of every bus alike; this says which rounds had it.
   */
  readonly otherCores: number;
  /**
   * The dispatcher's own bus lag (publish → read from the bus, `voicegw_event_bus_lag_seconds`)
   * at p99, as the upper bound of its histogram bucket in ms: whether the tail was the bus's or
   * the delivery's.
   */
  readonly busLagP99: number;
}

export interface BusLatencyResult {
  readonly variants: readonly BusVariant[];
  /** Per variant (in `variants` order), its runs in round order. */
  readonly runs: readonly (readonly BusRun[])[];
  readonly host: HostRecord;
  readonly brokerPid: number | undefined;
  readonly redisVersion: string;
}

const commandResult = (i: number): EventPayload<'command.result'> => ({
  event: 'command.result',
  session_uuid: `bench-${randomUUID()}`,
  operation_id: randomUUID(),
  command: 'playback/stop',
  command_uid: `bus.${i}`,
  success: true,
});

/** One bus's apps, publisher and Kafka topic: its own Redis prefix, so buses share no state. */
interface BusSetup {
  readonly variant: BusVariant;
  readonly prefix: string;
  readonly publisher: EventPublisher;
  readonly appIds: readonly string[];
  readonly dispatcherEnv: Readonly<Record<string, string>>;
}

/**
 * Publish → webhook latency at BUS_RATE events/s on each bus of `options.buses`, alternated
 * round by round (`rotate`), each run with a fresh dispatcher in a child process: events are
 * published through the real publisher (the ingest stream, as a media node does), routed onto the
 * bus by the dispatcher's router, read back and POSTed to the receiver in this process, and timed
 * from the publish to the webhook's arrival.
 */
export async function measureBusLatency(
  options: BenchOptions,
  log: (line: string) => void,
): Promise<BusLatencyResult> {
  const redisServer = await spawnRedis({ appendOnly: true });
  const redis = new Redis(redisServer.url);
  const receiver = await WebhookReceiver.start();
  receiver.parseResults = true;
  const brokerPid = Number(process.env[BROKER_PID_ENV]) || undefined;
  try {
    const run = randomBytes(3).toString('hex');
    const setups: BusSetup[] = [];
    for (const [i, variant] of options.buses.entries()) {
      setups.push(
        await setUp(redis, receiver, variant, `benchbus${i}`, `voicegw.bench.${run}.${i}`),
      );
    }
    const rounds = await rotate(
      options.rounds,
      setups,
      (setup, round) => {
        log(`bus round ${round + 1}: ${setup.variant.label}, ${BUS_RATE} events/s`);
        return measureOne(options, redisServer.url, redis, receiver, setup, brokerPid);
      },
      { sensitivity: 'latency' },
    );
    return {
      variants: options.buses,
      runs: rounds.runs,
      host: rounds,
      brokerPid,
      redisVersion: /^redis_version:(\S+)/m.exec(await redis.info('server'))?.[1] ?? 'unknown',
    };
  } finally {
    await receiver.close();
    redis.disconnect();
    await redisServer.stop();
  }
}

async function setUp(
  redis: Redis,
  receiver: WebhookReceiver,
  variant: BusVariant,
  prefix: string,
  topic: string,
): Promise<BusSetup> {
  const store = new AppStore(redis, new RedisKeys(prefix));
  const appIds = Array.from({ length: BUS_APPS }, (_, i) => `bench_bus_${i}`);
  for (const appId of appIds) {
    await store.save({
      app_id: appId,
      webhook_url: `${receiver.url}/${appId}`,
      api_key: `key-${randomBytes(16).toString('hex')}`,
      rate_limit: 0,
      events: [],
      webhook_secret: `whsec_${randomBytes(24).toString('base64')}`,
      created_at: new Date().toISOString(),
    });
  }
  // A topic of its own per bus: its partitions are the variant's, and no round reads another's.
  const dispatcherEnv =
    variant.bus === 'kafka' ? { KAFKA_TOPIC: topic, ...variant.env } : { ...variant.env };
  return {
    variant,
    prefix,
    publisher: createEventPublisher({ REDIS_PREFIX: prefix }, redis),
    appIds,
    dispatcherEnv,
  };
}

async function measureOne(
  options: BenchOptions,
  redisUrl: string,
  redis: Redis,
  receiver: WebhookReceiver,
  setup: BusSetup,
  brokerPid: number | undefined,
): Promise<BusRun> {
  const dispatcher = await startChildServer({
    file: 'dispatcher-server.ts',
    env: {
      BENCH_REDIS_URL: redisUrl,
      BENCH_REDIS_PREFIX: setup.prefix,
      BENCH_DISPATCHER_ENV: JSON.stringify(setup.dispatcherEnv),
    },
    cpuProfileDir: options.cpuProfileDir,
  });
  const kafka = setup.variant.bus === 'kafka';
  const cpu = (): Promise<BusCpu> => cpuNow(dispatcher, redis, kafka ? brokerPid : undefined);
  try {
    let next = 0;
    const task = async (record: Recorder): Promise<void> => {
      const i = next++;
      const payload = commandResult(i);
      const t0 = performance.now();
      await setup.publisher.publish(setup.appIds[i % setup.appIds.length]!, payload);
      const arrived = await receiver.result(payload.operation_id, RESULT_TIMEOUT_MS);
      record('webhook', arrived - t0);
    };
    // The warm-up covers the consumer's start (a Kafka group's join, its first fetches) and the
    // paced load's lead-in.
    await pacedTasks(BUS_RATE, options.warmupSec + 1, task);
    const lagBefore = await busLagBuckets(dispatcher);
    const before = await cpu();
    const machineBefore = machineBusyMs();
    const ownBefore = ownCpuMs();
    const started = performance.now();
    const load = await pacedTasks(BUS_RATE, options.durationSec, task);
    const after = await cpu();
    const lagAfter = await busLagBuckets(dispatcher);
    const window = performance.now() - started;
    const ours =
      after.dispatcher - before.dispatcher + (after.redis - before.redis) + ownCpuMs() - ownBefore;
    const brokerMs = Number.isFinite(after.broker) ? after.broker - before.broker : 0;
    const otherCores = (machineBusyMs() - machineBefore - ours - brokerMs) / window;
    await sleep(1000);
    const idleFrom = await cpu();
    await sleep(IDLE_SEC * 1000);
    const idleTo = await cpu();
    const [p50, p99] = stepPercentiles(load, 'webhook');
    const [max] = load.steps.get('webhook')?.percentiles(1) ?? [Number.NaN];
    return {
      p50,
      p99,
      max: max ?? Number.NaN,
      completed: load.completed,
      failed: load.failed,
      perSec: load.perSec,
      errors: load.errors,
      cpuUsPerEvent: per(before, after, load.completed / 1000),
      idleCpuMsPerSec: per(idleFrom, idleTo, IDLE_SEC),
      otherCores,
      busLagP99: bucketQuantile(lagBefore, lagAfter, 0.99),
    };
  } finally {
    await dispatcher.stop();
  }
}

async function cpuNow(
  dispatcher: ChildServer,
  redis: Redis,
  brokerPid: number | undefined,
): Promise<BusCpu> {
  return {
    dispatcher: dispatcher.cpuMs() ?? Number.NaN,
    redis: await redisCpuMs(redis),
    broker: brokerPid === undefined ? Number.NaN : (processCpuMs(brokerPid) ?? Number.NaN),
  };
}

/** CPU ms used between two readings, divided by `units`. */
const per = (from: BusCpu, to: BusCpu, units: number): BusCpu => ({
  dispatcher: (to.dispatcher - from.dispatcher) / units,
  redis: (to.redis - from.redis) / units,
  broker: (to.broker - from.broker) / units,
});

/** The dispatcher's bus lag histogram: cumulative counts by upper bound (ms), from /metrics. */
async function busLagBuckets(dispatcher: ChildServer): Promise<Map<number, number>> {
  const response = await request(`${dispatcher.origin}/metrics`);
  const text = await response.body.text();
  const buckets = new Map<number, number>();
  const line = /^voicegw_event_bus_lag_seconds_bucket\{(?:[^}]*,)?le="([^"]+)"[^}]*\}\s+(\S+)$/gm;
  for (const [, le, value] of text.matchAll(line)) {
    buckets.set(le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le) * 1000, Number(value));
  }
  return buckets;
}

/** The upper bound of the bucket holding quantile `q` of what was observed between two scrapes. */
function bucketQuantile(from: Map<number, number>, to: Map<number, number>, q: number): number {
  const bounds = [...to.keys()].sort((a, b) => a - b);
  const total = (to.get(Number.POSITIVE_INFINITY) ?? 0) - (from.get(Number.POSITIVE_INFINITY) ?? 0);
  if (total <= 0) return Number.NaN;
  for (const bound of bounds) {
    if ((to.get(bound) ?? 0) - (from.get(bound) ?? 0) >= q * total) return bound;
  }
  return Number.NaN;
}

/** This process's CPU time so far (ms): the generator and the receiver. */
const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/**
 * Busy CPU time of the whole machine so far (ms): user, nice, system, irq and softirq of
 * /proc/stat's first line, in its 1/100 s ticks; NaN where there is no /proc/stat.
 */
function machineBusyMs(): number {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '')
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0] = fields;
    return (user + nice + system + irq + softirq) * 10;
  } catch {
    return Number.NaN;
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
