import { RedisKeys, spawnRedis } from '@voicegw/shared';
import { Redis } from 'ioredis';
import { startChildServer, type ChildServer } from '../lib/child-server.js';
import { closedLoop } from '../lib/closed-loop.js';
import { count, mib, ms, msUp, perSec, ratio, us } from '../lib/format.js';
import type { BenchOptions } from '../lib/options.js';
import { PacedLoad, type PacedLoadResult } from '../lib/paced-load.js';
import { abbaOrder, alternate, hostNote, type HostRecord } from '../lib/rounds.js';
import { redisAofRewrites, redisCpuMs, redisUsedMemory } from '../lib/redis-info.js';
import type { Scenario, ScenarioResult } from '../lib/scenario.js';
import { median, type LoadResult } from '../lib/stats.js';
import type { LoadTarget, RequestSpec } from '../lib/target.js';
import { LiveSessions, type SeededSession } from '../seed/live-sessions.js';

/** Issue 2's targets. */
const MIN_RATIO = 0.5;
const MAX_P99_AT_HALF_RATE_MS = 5;

/**
 * The per-app limit is per minute: 200 apps × 10,000/min allow 2,000,000 commands a minute,
 * far above what one api process serves, so no measured request is a 429.
 */
const APPS = 200;
const APP_RATE_LIMIT_PER_MINUTE = 10_000;
const KEY_PREFIX = 'bench';

/** Paced load before each measured half-rate window, not recorded (see PacedLoad). */
const LEAD_IN_SEC = 1;

/** One maximum-throughput measurement of one target. */
interface MaxRun {
  readonly load: LoadResult;
  /** CPU per request during the run (µs): the server child, Redis, and the load generator. */
  readonly serverCpuUs: number;
  readonly redisCpuUs: number;
  readonly generatorCpuUs: number;
}

/** Every round of one target, maximum throughput and half rate, in round order. */
interface Rounds {
  readonly max: MaxRun[];
  readonly half: PacedLoadResult[];
}

type Target = 'api' | 'baseline';
const TARGETS: readonly [Target, Target] = ['api', 'baseline'];

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
    const paced: PacedLoad[] = [];
    let stopTrimming = (): void => undefined;
    try {
      const keys = new RedisKeys(KEY_PREFIX);
      const fixture = await LiveSessions.seed(redis, keys, {
        apps: APPS,
        rateLimitPerMinute: APP_RATE_LIMIT_PER_MINUTE,
      });
      log(`seeded ${APPS} apps with one live session each on node ${fixture.nodePrefix}`);
      stopTrimming = fixture.keepStreamShort();
      const api = await startChildServer({
        file: 'api-server.ts',
        env: { BENCH_REDIS_URL: redisServer.url, BENCH_REDIS_PREFIX: KEY_PREFIX },
        cpuProfileDir: options.cpuProfileDir,
      });
      children.push(api);
      const baseline = await startChildServer({
        file: 'baseline-server.ts',
        cpuProfileDir: options.cpuProfileDir,
      });
      children.push(baseline);
      const servers = { api, baseline };
      const next = commandRequests(fixture.sessions);
      const target = (server: ChildServer): LoadTarget => ({
        origin: server.origin,
        next,
        expectedStatus: 202,
      });
      const memoryBefore = await redisUsedMemory(redis);
      const rewritesBefore = await redisAofRewrites(redis);

      for (const [label, server] of Object.entries(servers)) {
        log(`${label}: warm-up ${options.warmupSec} s at full load`);
        await closedLoop(target(server), { ...options, durationSec: options.warmupSec });
        await fixture.reset();
      }
      let apiEnqueued = 0;
      let apiAccepted = 0;
      const measureMax = async (label: Target): Promise<MaxRun> => {
        const server = servers[label];
        log(`${label}: maximum throughput, ${options.durationSec} s`);
        const appendedBefore = await fixture.appended();
        const [serverBefore, redisBefore] = [server.cpuMs(), await redisCpuMs(redis)];
        const generator = process.cpuUsage();
        const load = await closedLoop(target(server), options);
        const { user, system } = process.cpuUsage(generator);
        const [serverAfter, redisAfter] = [server.cpuMs(), await redisCpuMs(redis)];
        if (label === 'api') {
          apiEnqueued += (await fixture.appended()) - appendedBefore;
          apiAccepted += load.responses - load.unexpected;
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
      };
      const loads = {
        api: new PacedLoad(target(api), options.connections),
        baseline: new PacedLoad(target(baseline), options.connections),
      };
      paced.push(loads.api, loads.baseline);
      const measureHalf = async (label: Target, rate: number): Promise<PacedLoadResult> => {
        log(`${label}: ${rate} req/s (half the api maximum), ${options.durationSec} s`);
        const result = await loads[label].run({
          rate,
          durationSec: options.durationSec,
          leadInSec: LEAD_IN_SEC,
        });
        await fixture.reset();
        return result;
      };

      // Each round measures the maximum and then the latency at half of this round's api
      // maximum: the machine's speed drifts over minutes, and a rate measured minutes earlier
      // can load the api far beyond half.
      const apiRounds: Rounds = { max: [], half: [] };
      const baselineRounds: Rounds = { max: [], half: [] };
      /** Each round's half rate: half the api's maximum in that round (req/s). */
      const halfRates: number[] = [];
      const hostRecords: HostRecord[] = [];
      for (let round = 0; round < options.rounds; round++) {
        const order = abbaOrder(round, TARGETS);
        const max = await alternate(1, order, measureMax, { sensitivity: 'throughput' });
        const rate = Math.max(1, Math.round(max.runs.api[0]!.load.requestsPerSec / 2));
        if (round === 0) {
          for (const [label, load] of Object.entries(loads)) {
            // Warmed up like the maximum runs, over the pool the measurements use.
            log(`${label}: warm-up ${options.warmupSec} s at ${rate} req/s`);
            await load.run({ rate, durationSec: options.warmupSec });
            await fixture.reset();
          }
        }
        const half = await alternate(1, order, (label) => measureHalf(label, rate), {
          sensitivity: 'latency',
        });
        hostRecords.push(max, half);
        halfRates.push(rate);
        for (const [rounds, label] of [
          [apiRounds, 'api'],
          [baselineRounds, 'baseline'],
        ] as const) {
          rounds.max.push(max.runs[label][0]!);
          rounds.half.push(half.runs[label][0]!);
        }
      }
      const memoryAfter = await redisUsedMemory(redis);
      const rewrites = (await redisAofRewrites(redis)) - rewritesBefore;

      return report(options, apiRounds, baselineRounds, halfRates, [
        `redis-server ${await redisVersion(redis)}, appendonly yes, appendfsync everysec; ` +
          `${APPS} apps × 1 live session, requests round robin over them`,
        `api and baseline each run in a child process; the load generator runs in the parent; ` +
          `they are measured alternately, ${options.rounds} rounds, each round with the two ` +
          `side by side in time (ABBA order); every figure is the median round, the ratio the ` +
          `median of the rounds' ratios`,
        hostNote(hostRecords),
        `maximum throughput per round, api / baseline req/s: ` +
          apiRounds.max
            .map((run, i) => {
              const other = baselineRounds.max[i]!.load.requestsPerSec;
              const r = run.load.requestsPerSec / other;
              return `${perSec(run.load.requestsPerSec)} / ${perSec(other)} (${ratio(r)})`;
            })
            .join(', '),
        `p99 at half rate per round, at half that round's api maximum, api / baseline ms: ` +
          apiRounds.half
            .map(
              (run, i) =>
                `${ms(run.p99Ms)} / ${ms(baselineRounds.half[i]!.p99Ms)} at ` +
                `${perSec(halfRates[i]!)} req/s`,
            )
            .join(', '),
        `maximum throughput: autocannon, ${options.connections} connections, no pipelining; ` +
          `half rate: evenly paced open-loop arrivals over a pool of ${options.connections} ` +
          `connections, opened by the warm-up and kept for the measurements; each measured ` +
          `window follows a ${LEAD_IN_SEC} s lead-in at the same rate that is not recorded`,
        `commands the api appended to the node's stream during its maximum runs (XINFO ` +
          `entries-added; the stream is trimmed to ~1,000 entries every 100 ms, as the media ` +
          `node's consumer would): ` +
          `${count(apiEnqueued)}, for ${count(apiAccepted)} 202 answers received (requests ` +
          `still in flight when a load stopped make the difference)`,
        `half-rate runs achieved (median): api ` +
          `${perSec(median(apiRounds.half.map((h) => h.requestsPerSec)))} req/s, baseline ` +
          `${perSec(median(baselineRounds.half.map((h) => h.requestsPerSec)))} req/s; ` +
          `the load generator's own event-loop delay p99 was ` +
          `${ms(median(apiRounds.half.map((h) => h.generatorDelayP99Ms)))} ms and ` +
          `${ms(median(baselineRounds.half.map((h) => h.generatorDelayP99Ms)))} ms`,
        `CPU per request: user + system time of the server process, of redis-server and of ` +
          `the load generator during a maximum-throughput run, divided by its responses; it ` +
          `depends far less than requests/s on what else the machine runs`,
        `redis used_memory ${mib(memoryBefore)} before, ${mib(memoryAfter)} after ` +
          `(stream and idempotency claims cleared between measurements); ${count(rewrites)} AOF ` +
          `rewrites during the measurements (each forks a child that shares the two cores)`,
      ]);
    } finally {
      stopTrimming();
      for (const load of paced) await load.close();
      for (const child of children.reverse()) await child.stop();
      redis.disconnect();
      await redisServer.stop();
    }
  },
};

/** The median round of each figure. */
function medians(rounds: Rounds) {
  const of = (pick: (run: MaxRun) => number): number => median(rounds.max.map(pick));
  const halfOf = (pick: (run: PacedLoadResult) => number): number => median(rounds.half.map(pick));
  return {
    requestsPerSec: of((r) => r.load.requestsPerSec),
    maxP50Ms: of((r) => r.load.p50Ms),
    maxP99Ms: of((r) => r.load.p99Ms),
    serverCpuUs: of((r) => r.serverCpuUs),
    redisCpuUs: of((r) => r.redisCpuUs),
    generatorCpuUs: of((r) => r.generatorCpuUs),
    halfP50Ms: halfOf((r) => r.p50Ms),
    halfP99Ms: halfOf((r) => r.p99Ms),
    unexpected: [...rounds.max.map((r) => r.load), ...rounds.half].reduce(
      (sum, r) => sum + r.unexpected,
      0,
    ),
  };
}

function report(
  options: BenchOptions,
  apiRounds: Rounds,
  baselineRounds: Rounds,
  halfRates: readonly number[],
  notes: string[],
): ScenarioResult {
  const api = medians(apiRounds);
  const baseline = medians(baselineRounds);
  const throughputRatio = median(
    apiRounds.max.map(
      (run, i) => run.load.requestsPerSec / baselineRounds.max[i]!.load.requestsPerSec,
    ),
  );
  const halfRate = median(halfRates);
  const half = `at half the api max (median ${perSec(halfRate)} req/s)`;
  return {
    columns: ['measurement (median round)', 'api', 'baseline', 'api / baseline'],
    rows: [
      [
        `max throughput (${options.connections} conn): requests/s`,
        perSec(api.requestsPerSec),
        perSec(baseline.requestsPerSec),
        ratio(throughputRatio),
      ],
      ['max throughput: p50 ms', ms(api.maxP50Ms), ms(baseline.maxP50Ms), ''],
      ['max throughput: p99 ms', ms(api.maxP99Ms), ms(baseline.maxP99Ms), ''],
      [
        'server CPU per request µs',
        us(api.serverCpuUs),
        us(baseline.serverCpuUs),
        ratio(api.serverCpuUs / baseline.serverCpuUs),
      ],
      ['redis CPU per request µs', us(api.redisCpuUs), '—', ''],
      [
        'load generator CPU per request µs',
        us(api.generatorCpuUs),
        us(baseline.generatorCpuUs),
        '',
      ],
      [`${half}: p50 ms`, ms(api.halfP50Ms), ms(baseline.halfP50Ms), ''],
      [`${half}: p99 ms`, ms(api.halfP99Ms), ms(baseline.halfP99Ms), ''],
      [
        'responses other than 202 (all rounds)',
        count(api.unexpected),
        count(baseline.unexpected),
        '',
      ],
    ],
    checks: [
      {
        target: `api/baseline requests/s ≥ ${MIN_RATIO}`,
        actual: ratio(throughputRatio),
        pass: throughputRatio >= MIN_RATIO,
      },
      {
        target: `api p99 ≤ ${MAX_P99_AT_HALF_RATE_MS} ms at half the api's maximum rate`,
        actual: `${msUp(api.halfP99Ms)} ms at a median ${perSec(halfRate)} req/s`,
        pass: api.halfP99Ms <= MAX_P99_AT_HALF_RATE_MS,
      },
      {
        target: 'every response is 202 (otherwise the figures are not valid)',
        actual: `${count(api.unexpected)} api, ${count(baseline.unexpected)} baseline`,
        pass: api.unexpected === 0 && baseline.unexpected === 0,
      },
    ],
    chart: [
      {
        label: 'max throughput',
        unit: 'req/s',
        value: api.requestsPerSec,
        baseline: baseline.requestsPerSec,
      },
      {
        label: 'server CPU per request',
        unit: 'µs',
        value: api.serverCpuUs,
        baseline: baseline.serverCpuUs,
      },
      {
        label: 'p99 at half the api max',
        unit: 'ms',
        value: api.halfP99Ms,
        baseline: baseline.halfP99Ms,
      },
    ],
    notes:
      baseline.halfP99Ms > MAX_P99_AT_HALF_RATE_MS
        ? [
            ...notes,
            `the bare baseline itself had a p99 of ${ms(baseline.halfP99Ms)} ms at this rate: ` +
              `latency on this machine was dominated by other load, so the api's p99 says ` +
              `little about the api; rerun on an idle machine`,
          ]
        : notes,
  };
}

async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
}
