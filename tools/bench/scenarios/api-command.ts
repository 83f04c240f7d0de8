import { RedisKeys } from '@voicegw/shared';
import { spawnRedis } from '@voicegw/tools';
import { Redis } from 'ioredis';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { closedLoop } from '../lib/closed-loop.js';
import { count, mib, ms, perSec, ratio } from '../lib/format.js';
import type { BenchOptions } from '../lib/options.js';
import { PacedLoad, type PacedLoadResult } from '../lib/paced-load.js';
import { abbaOrder, alternate, hostNote, type HostRecord } from '../lib/rounds.js';
import { redisAofRewrites, redisCpuMs, redisUsedMemory } from '../lib/redis-info.js';
import type { Scenario } from '../lib/scenario.js';
import { median } from '../lib/stats.js';
import type { LoadTarget, RequestSpec } from '../lib/target.js';
import { LiveSessions, type SeededSession } from '../seed/live-sessions.js';
import { report, type MaxRun, type Measured, type Rounds } from './api-command-report.js';

/**
 * The per-app limit is per minute: 200 apps × 10,000/min allow 2,000,000 commands a minute,
 * far above what one api process serves, so no measured request is a 429.
 */
const APPS = 200;
const APP_RATE_LIMIT_PER_MINUTE = 10_000;
const KEY_PREFIX = 'bench';

/** Paced load before each measured half-rate window, not recorded (see PacedLoad). */
const LEAD_IN_SEC = 1;

type Target = 'api' | 'baseline';
const TARGETS: readonly [Target, Target] = ['api', 'baseline'];

type Log = (line: string) => void;

/** Round robin over the seeded sessions, one request per call. */
function commandRequests(sessions: readonly SeededSession[]): () => RequestSpec {
  const specs = sessions.map((s): RequestSpec => ({
    method: 'POST',
    path: `/api/v1/sessions/${s.sessionId}/commands/answer`,
    headers: { 'x-app-id': s.appId, 'x-api-key': s.apiKey },
  }));
  let i = 0;
  return () => specs[i++ % specs.length]!;
}

export const apiCommand: Scenario = {
  name: 'api-command',
  title:
    'POST /api/v1/sessions/{id}/commands/answer on the real api (Redis with AOF) ' +
    'against a bare fastify route answering the same 202',

  async run(options, log) {
    log('starting redis-server (appendonly yes, appendfsync everysec)');
    const redisServer = await spawnRedis({ appendOnly: true });
    const redis = new Redis(redisServer.url);
    const children: ChildServer[] = [];
    let bench: Bench | undefined;
    let stopTrimming = (): void => undefined;
    try {
      const fixture = await LiveSessions.seed(redis, new RedisKeys(KEY_PREFIX), {
        apps: APPS,
        rateLimitPerMinute: APP_RATE_LIMIT_PER_MINUTE,
      });
      log(`seeded ${APPS} apps with one live session each on node ${fixture.nodePrefix}`);
      stopTrimming = fixture.keepStreamShort();
      const servers = await startServers(options, redisServer.url, children);
      bench = new Bench(options, log, redis, fixture, servers);
      const memoryBefore = await redisUsedMemory(redis);
      const rewritesBefore = await redisAofRewrites(redis);
      await bench.warmUp();
      const { measured, hostRecords } = await bench.rounds();
      const memoryAfter = await redisUsedMemory(redis);
      const rewrites = (await redisAofRewrites(redis)) - rewritesBefore;
      return report(options, measured, [
        `redis-server ${await redisVersion(redis)}, appendonly yes, appendfsync everysec; ` +
          `${APPS} apps × 1 live session, requests round robin over them`,
        ...roundNotes(options, measured, hostRecords),
        `commands the api appended to the node's stream during its maximum runs (XINFO ` +
          `entries-added; the stream is trimmed to ~1,000 entries every 100 ms, as the media ` +
          `node's consumer would): ` +
          `${count(bench.apiEnqueued)}, for ${count(bench.apiAccepted)} 202 answers received ` +
          `(requests still in flight when a load stopped make the difference)`,
        ...halfRateNotes(measured),
        `redis used_memory ${mib(memoryBefore)} before, ${mib(memoryAfter)} after ` +
          `(stream and idempotency claims cleared between measurements); ${count(rewrites)} AOF ` +
          `rewrites during the measurements (each forks a child that shares the two cores)`,
      ]);
    } finally {
      stopTrimming();
      await bench?.close();
      for (const child of children.reverse()) await child.stop();
      redis.disconnect();
      await redisServer.stop();
    }
  },
};

/** The api on the seeded Redis and the bare baseline, each a child process. */
async function startServers(
  options: BenchOptions,
  redisUrl: string,
  children: ChildServer[],
): Promise<Record<Target, ChildServer>> {
  const api = await startChildServer({
    file: 'api-server.ts',
    env: { BENCH_REDIS_URL: redisUrl, BENCH_REDIS_PREFIX: KEY_PREFIX },
    cpuProfileDir: options.cpuProfileDir,
  });
  children.push(api);
  const baseline = await startChildServer({
    file: 'baseline-server.ts',
    cpuProfileDir: options.cpuProfileDir,
  });
  children.push(baseline);
  return { api, baseline };
}

/** The measurements of both targets over the seeded sessions: warm-up, then the rounds. */
class Bench {
  /** Commands the api appended to the stream, and the 202s it answered, in its maximum runs. */
  apiEnqueued = 0;
  apiAccepted = 0;
  private readonly next: () => RequestSpec;
  private loads: Record<Target, PacedLoad> | undefined;

  constructor(
    private readonly options: BenchOptions,
    private readonly log: Log,
    private readonly redis: Redis,
    private readonly fixture: LiveSessions,
    private readonly servers: Record<Target, ChildServer>,
  ) {
    this.next = commandRequests(fixture.sessions);
  }

  private target(server: ChildServer): LoadTarget {
    return { origin: server.origin, next: this.next, expectedStatus: 202 };
  }

  /** Each target at full load for the warm-up; then the paced loads the half-rate runs use. */
  async warmUp(): Promise<void> {
    const { options, log } = this;
    for (const [label, server] of Object.entries(this.servers)) {
      log(`${label}: warm-up ${options.warmupSec} s at full load`);
      await closedLoop(this.target(server), { ...options, durationSec: options.warmupSec });
      await this.fixture.reset();
    }
    this.loads = {
      api: new PacedLoad(this.target(this.servers.api), options.connections),
      baseline: new PacedLoad(this.target(this.servers.baseline), options.connections),
    };
  }

  /**
   * Each round measures the maximum and then the latency at half of this round's api maximum:
   * the machine's speed drifts over minutes, and a rate measured minutes earlier can load the
   * api far beyond half.
   */
  async rounds(): Promise<{ measured: Measured; hostRecords: HostRecord[] }> {
    const api: Rounds = { max: [], half: [] };
    const baseline: Rounds = { max: [], half: [] };
    const halfRates: number[] = [];
    const hostRecords: HostRecord[] = [];
    for (let round = 0; round < this.options.rounds; round++) {
      const order = abbaOrder(round, TARGETS);
      const max = await alternate(1, order, (label) => this.measureMax(label), {
        sensitivity: 'throughput',
      });
      const rate = Math.max(1, Math.round(max.runs.api[0]!.load.requestsPerSec / 2));
      if (round === 0) await this.warmUpPaced(rate);
      const half = await alternate(1, order, (label) => this.measureHalf(label, rate), {
        sensitivity: 'latency',
      });
      hostRecords.push(max, half);
      halfRates.push(rate);
      for (const [rounds, label] of [
        [api, 'api'],
        [baseline, 'baseline'],
      ] as const) {
        rounds.max.push(max.runs[label][0]!);
        rounds.half.push(half.runs[label][0]!);
      }
    }
    return { measured: { api, baseline, halfRates }, hostRecords };
  }

  /** The paced loads warmed up like the maximum runs, over the pool the measurements use. */
  private async warmUpPaced(rate: number): Promise<void> {
    for (const [label, load] of Object.entries(this.pacedLoads())) {
      this.log(`${label}: warm-up ${this.options.warmupSec} s at ${rate} req/s`);
      await load.run({ rate, durationSec: this.options.warmupSec });
      await this.fixture.reset();
    }
  }

  private async measureMax(label: Target): Promise<MaxRun> {
    const { options, redis, fixture } = this;
    const server = this.servers[label];
    this.log(`${label}: maximum throughput, ${options.durationSec} s`);
    const appendedBefore = await fixture.appended();
    const [serverBefore, redisBefore] = [server.cpuMs(), await redisCpuMs(redis)];
    const generator = process.cpuUsage();
    const load = await closedLoop(this.target(server), options);
    const { user, system } = process.cpuUsage(generator);
    const [serverAfter, redisAfter] = [server.cpuMs(), await redisCpuMs(redis)];
    if (label === 'api') {
      this.apiEnqueued += (await fixture.appended()) - appendedBefore;
      this.apiAccepted += load.responses - load.unexpected;
    }
    await fixture.reset();
    const perRequestUs = (before = NaN, after = NaN): number =>
      ((after - before) * 1000) / load.responses;
    return {
      load,
      serverCpuUs: perRequestUs(serverBefore, serverAfter),
      redisCpuUs: label === 'api' ? perRequestUs(redisBefore, redisAfter) : Number.NaN,
      generatorCpuUs: (user + system) / load.responses,
    };
  }

  private async measureHalf(label: Target, rate: number): Promise<PacedLoadResult> {
    const { durationSec } = this.options;
    this.log(`${label}: ${rate} req/s (half the api maximum), ${durationSec} s`);
    const result = await this.pacedLoads()[label].run({
      rate,
      durationSec,
      leadInSec: LEAD_IN_SEC,
    });
    await this.fixture.reset();
    return result;
  }

  private pacedLoads(): Record<Target, PacedLoad> {
    if (!this.loads) throw new Error('paced loads before the warm-up');
    return this.loads;
  }

  async close(): Promise<void> {
    if (this.loads) for (const load of Object.values(this.loads)) await load.close();
  }
}

/** How the rounds ran, and each round's figures. */
function roundNotes(options: BenchOptions, m: Measured, hostRecords: HostRecord[]): string[] {
  return [
    `api and baseline each run in a child process; the load generator runs in the parent; ` +
      `they are measured alternately, ${options.rounds} rounds, each round with the two ` +
      `side by side in time (ABBA order); every figure is the median round, the ratio the ` +
      `median of the rounds' ratios`,
    hostNote(hostRecords),
    `maximum throughput per round, api / baseline req/s: ` +
      m.api.max
        .map((run, i) => {
          const other = m.baseline.max[i]!.load.requestsPerSec;
          const r = run.load.requestsPerSec / other;
          return `${perSec(run.load.requestsPerSec)} / ${perSec(other)} (${ratio(r)})`;
        })
        .join(', '),
    `p99 at half rate per round, at half that round's api maximum, api / baseline ms: ` +
      m.api.half
        .map(
          (run, i) =>
            `${ms(run.p99Ms)} / ${ms(m.baseline.half[i]!.p99Ms)} at ` +
            `${perSec(m.halfRates[i]!)} req/s`,
        )
        .join(', '),
    `maximum throughput: autocannon, ${options.connections} connections, no pipelining; ` +
      `half rate: evenly paced open-loop arrivals over a pool of ${options.connections} ` +
      `connections, opened by the warm-up and kept for the measurements; each measured ` +
      `window follows a ${LEAD_IN_SEC} s lead-in at the same rate that is not recorded`,
  ];
}

/** What the half-rate runs achieved, and how the measurements count CPU. */
function halfRateNotes(m: Measured): string[] {
  const medianOf = (rounds: Rounds, pick: (h: PacedLoadResult) => number): number =>
    median(rounds.half.map(pick));
  return [
    `half-rate runs achieved (median): api ` +
      `${perSec(medianOf(m.api, (h) => h.requestsPerSec))} req/s, baseline ` +
      `${perSec(medianOf(m.baseline, (h) => h.requestsPerSec))} req/s; ` +
      `the load generator's own event-loop delay p99 was ` +
      `${ms(medianOf(m.api, (h) => h.generatorDelayP99Ms))} ms and ` +
      `${ms(medianOf(m.baseline, (h) => h.generatorDelayP99Ms))} ms`,
    `CPU per request: user + system time of the server process, of redis-server and of ` +
      `the load generator during a maximum-throughput run, divided by its responses; it ` +
      `depends far less than requests/s on what else the machine runs`,
  ];
}

async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
}
