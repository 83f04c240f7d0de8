import { BUS_RATE, type BusCpu, type BusLatencyResult, type BusRun } from '../lib/bus-latency.js';
import { count, ms, us } from '../lib/format.js';
import { hostNote } from '../lib/rounds.js';
import type { Cell } from '../lib/scenario.js';
import { median } from '../lib/stats.js';

/**
 * The rows and notes of `--bus`: per bus, the median round's publish → webhook p50 / p99 and its
 * CPU, the Redis bus first as the reference; every round in the notes, since on a shared machine
 * the spread says as much as the median.
 */
export function busReport(result: BusLatencyResult | Error): { rows: Cell[][]; notes: string[] } {
  if (result instanceof Error) {
    return { rows: [], notes: [`bus latency not measured: ${result.message}`] };
  }
  const rows: Cell[][] = [];
  const notes: string[] = [
    `bus latency: publish (real publisher, ingest stream) → webhook at ${BUS_RATE} events/s ` +
      `over 100 apps, each bus with a fresh dispatcher per round, the buses in rotating order; ` +
      `redis ${result.redisVersion}; figures are the median round; per round, "bus lag" is the ` +
      `dispatcher's own publish → read histogram (its p99 bucket), "other cores" the machine's ` +
      `busy CPU beyond the processes measured; CPU in /proc ticks (10 ms)` +
      (result.brokerPid === undefined
        ? "; broker CPU not measured (set BENCH_KAFKA_BROKER_PID to a local broker's pid)"
        : `; broker: pid ${result.brokerPid}`),
    hostNote([result.host]),
  ];
  for (const [i, variant] of result.variants.entries()) {
    const runs = result.runs[i] ?? [];
    const pick = (f: (run: BusRun) => number): number => median(runs.map(f));
    const cpu = (f: (run: BusRun) => BusCpu, format: (n: number) => string): string =>
      cpuCell(runs.map(f), format);
    rows.push(
      [
        `bus ${variant.label}: publish → webhook p50 / p99 ms at ${BUS_RATE}/s`,
        `${ms(pick((r) => r.p50))} / ${ms(pick((r) => r.p99))}`,
        '—',
        '',
      ],
      [
        `bus ${variant.label}: CPU per event µs, dispatcher / redis / broker`,
        cpu((r) => r.cpuUsPerEvent, us),
        '—',
        '',
      ],
      [
        `bus ${variant.label}: CPU idle ms/s, dispatcher / redis / broker`,
        cpu(
          (r) => r.idleCpuMsPerSec,
          (n) => n.toFixed(1),
        ),
        '—',
        '',
      ],
    );
    notes.push(
      `bus ${variant.label}, per round publish → webhook p50 / p99 / max ms: ` +
        runs
          .map(
            (r) =>
              `${ms(r.p50)} / ${ms(r.p99)} / ${ms(r.max)} ` +
              `(bus lag p99 ≤ ${r.busLagP99} ms; ${r.otherCores.toFixed(2)} other cores)`,
          )
          .join(', ') +
        `; ${count(runs.reduce((n, r) => n + r.completed, 0))} delivered, ` +
        `${count(runs.reduce((n, r) => n + r.failed, 0))} not within 5 s` +
        (runs.some((r) => r.errors.length > 0)
          ? ` (${runs
              .flatMap((r) => r.errors)
              .slice(0, 2)
              .join('; ')})`
          : ''),
    );
  }
  return { rows, notes };
}

/** dispatcher / redis / broker, each the median over the rounds; `—` where not measured. */
function cpuCell(readings: readonly BusCpu[], format: (n: number) => string): string {
  const of = (f: (c: BusCpu) => number): string => {
    const value = median(readings.map(f));
    return Number.isFinite(value) ? format(value) : '—';
  };
  return `${of((c) => c.dispatcher)} / ${of((c) => c.redis)} / ${of((c) => c.broker)}`;
}
