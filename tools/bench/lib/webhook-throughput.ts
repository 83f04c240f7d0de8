import { randomBytes, randomUUID } from 'node:crypto';
import { createEventPublisher, envelope, RedisKeys, type EventPayload } from '@voicegw/shared';
import { spawnRedis } from '@voicegw/tools';
import { Redis } from 'ioredis';
import { request } from 'undici';
import { AppStore } from '@voicegw/api';
import { startChildServer, type ChildServer } from './child-server.js';
import type { BenchOptions } from './options.js';
import { redisCpuMs } from './redis-info.js';
import { alternate, type HostRecord } from './rounds.js';
import { WebhookReceiver } from './webhook-receiver.js';

/** Apps the events are spread over; the dispatcher has one request in flight per app. */
export const WEBHOOK_APPS = 100;
/** The dispatcher's default WEBHOOK_CONNECTIONS_PER_ORIGIN, given to the raw loop as well. */
const CONNECTIONS_PER_ORIGIN = 32;
/** Events in the backlog at most (Redis memory: each is in the ingest and a shard stream). */
const MAX_EVENTS = 300_000;
const PREFIX = 'benchwh';

export interface SenderRun {
  readonly delivered: number;
  readonly seconds: number;
  readonly perSec: number;
  /** CPU µs per webhook of the sending process; of Redis (dispatcher only). */
  readonly cpuUs: number;
  readonly redisCpuUs: number;
  readonly failed: number;
}

export interface ThroughputResult {
  /** One run of each per round, in round order (see `alternate`). */
  readonly raw: readonly SenderRun[];
  readonly dispatcher: readonly SenderRun[];
  /** Events published before each dispatcher run: warm-up plus measured. */
  readonly published: number;
  readonly warmup: number;
  /** Requests the receiver got beyond the events published, over every dispatcher run. */
  readonly repeats: number;
  /** What the host took during the rounds: steal and pauses (see rounds.ts). */
  readonly host: HostRecord;
  readonly redisVersion: string;
}

const commandResult = (i: number): EventPayload<'command.result'> => ({
  event: 'command.result',
  session_uuid: `bench-${randomUUID()}`,
  operation_id: randomUUID(),
  command: 'playback/stop',
  command_uid: `wh.${i}`,
  success: true,
});

/**
 * Webhooks/s of one dispatcher draining a backlog published through the real publisher into a
 * real Redis (AOF everysec), against a bare undici POST loop with the same bodies, receiver,
 * requests in flight (one per app) and connections per origin. Each sender runs in a child
 * process; the receiver is this process. The two are measured alternately, `options.rounds`
 * rounds in ABBA order, so that both see the same drift of a shared machine.
 */
export async function measureThroughput(
  options: BenchOptions,
  log: (line: string) => void,
): Promise<ThroughputResult> {
  const redisServer = await spawnRedis({ appendOnly: true });
  const redis = new Redis(redisServer.url);
  const receiver = await WebhookReceiver.start();
  const keys = new RedisKeys(PREFIX);
  const raw = await RawSender.start(options);
  try {
    const store = new AppStore(redis, keys);
    const appIds = Array.from({ length: WEBHOOK_APPS }, (_, i) => `bench_wh_${i}`);
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
    const bodies = appIds.map((appId, i) => JSON.stringify(envelope(appId, commandResult(i))));
    const publisher = createEventPublisher({ REDIS_PREFIX: PREFIX }, redis);

    log(`raw undici POST loop: warm-up ${options.warmupSec} s`);
    const first = await raw.run(receiver, bodies, options.warmupSec);
    // The backlog is sized from the raw rate, so that a dispatcher run lasts about as long.
    const warmup = Math.min(MAX_EVENTS / 4, Math.round(first.perSec * options.warmupSec * 0.5));
    const measured = Math.min(MAX_EVENTS, Math.round(first.perSec * options.durationSec * 0.7));
    const published = warmup + measured;
    let repeats = 0;

    const runs = await alternate(
      options.rounds,
      ['raw', 'dispatcher'],
      async (sender, round): Promise<SenderRun> => {
        if (sender === 'raw') {
          log(
            `round ${round + 1}: raw undici POST loop, ${WEBHOOK_APPS} in flight, ${options.durationSec} s`,
          );
          return raw.run(receiver, bodies, options.durationSec);
        }
        log(
          `round ${round + 1}: publishing ${published} events over ${WEBHOOK_APPS} apps (no dispatcher running)`,
        );
        await publish(publisher, appIds, published);
        log(
          `round ${round + 1}: dispatcher draining ${warmup} (warm-up) + ${measured} (measured) events`,
        );
        const run = await drain(options, redisServer.url, redis, receiver, warmup, measured);
        repeats += run.received - published;
        return run.result;
      },
      { sensitivity: 'throughput' },
    );
    return {
      ...runs.runs,
      host: runs,
      published,
      warmup,
      repeats,
      redisVersion: /^redis_version:(\S+)/m.exec(await redis.info('server'))?.[1] ?? 'unknown',
    };
  } finally {
    await raw.stop();
    await receiver.close();
    redis.disconnect();
    await redisServer.stop();
  }
}

async function publish(
  publisher: ReturnType<typeof createEventPublisher>,
  appIds: readonly string[],
  total: number,
): Promise<void> {
  for (let sent = 0; sent < total;) {
    const batch = Math.min(2000, total - sent);
    await Promise.all(
      Array.from({ length: batch }, (_, k) => {
        const i = sent + k;
        return publisher.publish(appIds[i % appIds.length] ?? '', commandResult(i));
      }),
    );
    sent += batch;
  }
}

/** A fresh dispatcher drains the backlog; the first `warmup` webhooks are not on the clock. */
async function drain(
  options: BenchOptions,
  redisUrl: string,
  redis: Redis,
  receiver: WebhookReceiver,
  warmup: number,
  measured: number,
): Promise<{ result: SenderRun; received: number }> {
  receiver.received = 0;
  const dispatcher = await startChildServer({
    file: 'dispatcher-server.ts',
    env: { BENCH_REDIS_URL: redisUrl, BENCH_REDIS_PREFIX: PREFIX },
    cpuProfileDir: options.cpuProfileDir,
  });
  try {
    const timeoutMs = (options.durationSec * 20 + 60) * 1000;
    const start = await within(receiver.reached(warmup), timeoutMs, 'warm-up webhooks');
    const cpu0 = dispatcher.cpuMs() ?? Number.NaN;
    const redis0 = await redisCpuMs(redis);
    const end = await within(receiver.reached(warmup + measured), timeoutMs, 'measured webhooks');
    const cpu1 = dispatcher.cpuMs() ?? Number.NaN;
    const redis1 = await redisCpuMs(redis);
    const seconds = (end - start) / 1000;
    // Repeats (at-least-once) would show as more requests than events.
    await new Promise((resolve) => setTimeout(resolve, 500));
    return {
      result: {
        delivered: measured,
        seconds,
        perSec: measured / seconds,
        cpuUs: ((cpu1 - cpu0) * 1000) / measured,
        redisCpuUs: ((redis1 - redis0) * 1000) / measured,
        failed: 0,
      },
      received: receiver.received,
    };
  } finally {
    await dispatcher.stop();
  }
}

/** The raw POST loop's child process, started once and run once per round. */
class RawSender {
  private constructor(private readonly child: ChildServer) {}

  static async start(options: BenchOptions): Promise<RawSender> {
    return new RawSender(
      await startChildServer({
        file: 'raw-webhook-server.ts',
        cpuProfileDir: options.cpuProfileDir,
      }),
    );
  }

  async run(
    receiver: WebhookReceiver,
    bodies: readonly string[],
    durationSec: number,
  ): Promise<SenderRun> {
    const cpu0 = this.child.cpuMs() ?? Number.NaN;
    const response = await request(`${this.child.origin}/run`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `${receiver.url}/raw`,
        bodies,
        inFlight: WEBHOOK_APPS,
        connections: CONNECTIONS_PER_ORIGIN,
        durationSec,
      }),
      headersTimeout: (durationSec + 30) * 1000,
    });
    const result = (await response.body.json()) as { ok: number; failed: number; seconds: number };
    const cpu1 = this.child.cpuMs() ?? Number.NaN;
    return {
      delivered: result.ok,
      seconds: result.seconds,
      perSec: result.ok / result.seconds,
      cpuUs: ((cpu1 - cpu0) * 1000) / result.ok,
      redisCpuUs: Number.NaN,
      failed: result.failed,
    };
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
