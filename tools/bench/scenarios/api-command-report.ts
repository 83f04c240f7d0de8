import { count, ms, msUp, perSec, ratio, us } from '../lib/format.js';
import type { BenchOptions } from '../lib/options.js';
import type { PacedLoadResult } from '../lib/paced-load.js';
import type { ChartBar, Check, Cell, ScenarioResult } from '../lib/scenario.js';
import { median, type LoadResult } from '../lib/stats.js';

/** The targets of the api's command path. */
const MIN_RATIO = 0.5;
const MAX_P99_AT_HALF_RATE_MS = 5;

/** One maximum-throughput measurement of one target. */
export interface MaxRun {
  readonly load: LoadResult;
  /** CPU per request during the run (µs): the server child, Redis, and the load generator. */
  readonly serverCpuUs: number;
  readonly redisCpuUs: number;
  readonly generatorCpuUs: number;
}

/** Every round of one target, maximum throughput and half rate, in round order. */
export interface Rounds {
  readonly max: MaxRun[];
  readonly half: PacedLoadResult[];
}

/** What the rounds measured: each target's runs, and each round's half rate (req/s). */
export interface Measured {
  readonly api: Rounds;
  readonly baseline: Rounds;
  readonly halfRates: readonly number[];
}

type Medians = ReturnType<typeof medians>;

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

export function report(options: BenchOptions, m: Measured, notes: string[]): ScenarioResult {
  const api = medians(m.api);
  const baseline = medians(m.baseline);
  // Each round's runs were side by side in time: the median of the rounds' ratios.
  const throughputRatio = median(
    m.api.max.map((run, i) => run.load.requestsPerSec / m.baseline.max[i]!.load.requestsPerSec),
  );
  const halfRate = median(m.halfRates);
  return {
    columns: ['measurement (median round)', 'api', 'baseline', 'api / baseline'],
    rows: rows(options.connections, api, baseline, throughputRatio, halfRate),
    checks: checks(api, baseline, throughputRatio, halfRate),
    chart: chartBars(api, baseline),
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

function rows(
  connections: number,
  api: Medians,
  baseline: Medians,
  throughputRatio: number,
  halfRate: number,
): Cell[][] {
  const half = `at half the api max (median ${perSec(halfRate)} req/s)`;
  return [
    [
      `max throughput (${connections} conn): requests/s`,
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
    ['load generator CPU per request µs', us(api.generatorCpuUs), us(baseline.generatorCpuUs), ''],
    [`${half}: p50 ms`, ms(api.halfP50Ms), ms(baseline.halfP50Ms), ''],
    [`${half}: p99 ms`, ms(api.halfP99Ms), ms(baseline.halfP99Ms), ''],
    [
      'responses other than 202 (all rounds)',
      count(api.unexpected),
      count(baseline.unexpected),
      '',
    ],
  ];
}

function checks(
  api: Medians,
  baseline: Medians,
  throughputRatio: number,
  halfRate: number,
): Check[] {
  return [
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
  ];
}

function chartBars(api: Medians, baseline: Medians): ChartBar[] {
  return [
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
  ];
}
