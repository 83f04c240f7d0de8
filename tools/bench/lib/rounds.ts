import { percent } from './format.js';
import { HostPauses, PAUSE_MS } from './host-pauses.js';
import { StealMeter } from './steal.js';
import { median } from './stats.js';

/**
 * What the host took from this virtual machine during a measurement, as shares of its CPU time
 * (0..1; NaN where unknown): reported as steal (steal.ts), or in pauses it did not report
 * (host-pauses.ts).
 */
export interface Interference {
  readonly steal: number;
  readonly paused: number;
}

/**
 * What a measurement's figures are sensitive to. Throughput over ten seconds loses little to
 * pauses of 10-30 ms; a p99 is made of them.
 */
export type Sensitivity = 'throughput' | 'latency';

/** A measurement counts only when the host took at most this much during it... */
const MAX: Record<Sensitivity, Interference> = {
  throughput: { steal: 0.1, paused: Number.POSITIVE_INFINITY },
  // 1 ms a second: 20 ms over a 10 s run on two CPUs, about one pause on both at once.
  latency: { steal: 0.1, paused: 0.001 },
};
/** ...and is started only after a second in which it took at most this much... */
const CALM: Record<Sensitivity, Interference> = {
  throughput: { steal: 0.05, paused: Number.POSITIVE_INFINITY },
  latency: { steal: 0.05, paused: 0.001 },
};
/** ...or after waiting this long for one. */
const CALM_WAIT_MS = 120_000;
/** A disturbed measurement is measured again at most this many times; then it counts as it is. */
const MAX_REPEATS = 3;

const within = (taken: Interference, limit: Interference): boolean =>
  !(taken.steal > limit.steal) && !(taken.paused > limit.paused);

/** The worse of each kind of interference over several runs. */
const worst = (taken: readonly Interference[]): Interference => ({
  steal: Math.max(...taken.map((t) => t.steal)),
  paused: Math.max(...taken.map((t) => t.paused)),
});

/** How much the host took during the measurements that counted, and what was measured again. */
export interface HostRecord {
  readonly sensitivity: Sensitivity;
  /** Per counted measurement, what the host took during it. */
  readonly taken: readonly Interference[];
  /** Measurements repeated because the host took more than the limit during them. */
  readonly repeated: number;
  /** Measurements counted although still over the limit after MAX_REPEATS repeats. */
  readonly disturbed: number;
}

/** Where interference is read: this machine, or a script in tests. */
export interface Host {
  /** Resolves once the host is calm enough for a measurement of this sensitivity. */
  calm(sensitivity: Sensitivity): Promise<unknown>;
  /** Starts measuring; `read()` is what the host took since. */
  meter(): { read(): Interference };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * This machine: steal from /proc/stat, pauses from probes started before the first calm wait and
 * left running for the rest of the benchmark (they exit with it).
 */
class ThisHost implements Host {
  private pauses: HostPauses | undefined;
  private probing: Promise<void> | undefined;

  async calm(sensitivity: Sensitivity): Promise<number> {
    this.probing ??= HostPauses.start().then((pauses) => {
      this.pauses = pauses;
    });
    await this.probing;
    const started = performance.now();
    for (;;) {
      const meter = this.meter();
      await sleep(1000);
      const taken = meter.read();
      const waited = performance.now() - started;
      const unknown = Number.isNaN(taken.steal) && Number.isNaN(taken.paused);
      if (unknown || within(taken, CALM[sensitivity]) || waited >= CALM_WAIT_MS) return waited;
    }
  }

  meter(): { read(): Interference } {
    const steal = StealMeter.start();
    const from = Date.now();
    return {
      read: () => {
        const to = Date.now();
        const paused = this.pauses
          ? this.pauses.pausedMs(from, to) / (this.pauses.cpus * Math.max(1, to - from))
          : Number.NaN;
        return { steal: steal.share(), paused };
      },
    };
  }
}

const THIS_HOST: Host = new ThisHost();

export interface CalmlyOptions<T> {
  readonly sensitivity: Sensitivity;
  /** What to judge a measurement by (the worst of its runs, say); else the whole of it. */
  readonly judge?: (result: T, overall: Interference) => Interference;
  readonly host?: Host;
}

/**
 * Runs `measure` on a calm host and again, up to MAX_REPEATS times, while the host took more
 * than a measurement of this sensitivity tolerates.
 */
export async function calmly<T>(
  measure: () => Promise<T>,
  { sensitivity, judge = (_, overall) => overall, host = THIS_HOST }: CalmlyOptions<T>,
): Promise<HostRecord & { readonly result: T }> {
  for (let attempt = 0; ; attempt++) {
    await host.calm(sensitivity);
    const meter = host.meter();
    const result = await measure();
    const taken = judge(result, meter.read());
    const ok = within(taken, MAX[sensitivity]);
    if (!ok && attempt < MAX_REPEATS) continue;
    return {
      result,
      sensitivity,
      taken: [taken],
      repeated: attempt,
      disturbed: ok ? 0 : 1,
    };
  }
}

/** ABBA: which of two targets goes first alternates from one round to the next. */
export const abbaOrder = <A, B>(
  round: number,
  [first, second]: readonly [A, B],
): [A, B] | [B, A] => (round % 2 === 0 ? [first, second] : [second, first]);

/** Each target's runs in round order: runs of the same index were side by side in time. */
export interface Alternated<K extends string, T> extends HostRecord {
  readonly runs: Record<K, T[]>;
}

/**
 * Runs `measure` for two targets, round after round, alternating which goes first (ABBA), so that
 * both see the same drift of a shared machine; reports take the median round. Each round is
 * measured `calmly`, judged by the worse of its two runs: the same rule for both targets.
 */
export async function alternate<A extends string, B extends string, T>(
  rounds: number,
  [first, second]: readonly [A, B],
  measure: (target: A | B, round: number) => Promise<T>,
  { sensitivity, host = THIS_HOST }: Omit<CalmlyOptions<never>, 'judge'>,
): Promise<Alternated<A | B, T>> {
  const runs = { [first]: [] as T[], [second]: [] as T[] } as Record<A | B, T[]>;
  const taken: Interference[] = [];
  let repeated = 0;
  let disturbed = 0;
  for (let round = 0; round < rounds; round++) {
    const order = abbaOrder(round, [first, second]);
    const measured = await calmly(
      async () => {
        const results: { target: A | B; result: T; taken: Interference }[] = [];
        for (const target of order) {
          const meter = host.meter();
          results.push({ target, result: await measure(target, round), taken: meter.read() });
        }
        return results;
      },
      { sensitivity, judge: (results) => worst(results.map((r) => r.taken)), host },
    );
    for (const { target, result } of measured.result) runs[target].push(result);
    taken.push(...measured.taken);
    repeated += measured.repeated;
    disturbed += measured.disturbed;
  }
  return { runs, sensitivity, taken, repeated, disturbed };
}

/** Round `round`'s order of several targets: each round starts one target later (ABC, BCA, CAB). */
export const rotatedOrder = <T>(round: number, targets: readonly T[]): T[] => {
  const shift = round % Math.max(1, targets.length);
  return [...targets.slice(shift), ...targets.slice(0, shift)];
};

/**
 * `alternate` for any number of targets: the order rotates from round to round (two targets:
 * ABBA), so that each target is measured in every position as often; a round is measured
 * `calmly`, judged by the worst of its runs. `runs[i]` are target i's runs in round order.
 */
export async function rotate<K, T>(
  rounds: number,
  targets: readonly K[],
  measure: (target: K, round: number) => Promise<T>,
  { sensitivity, host = THIS_HOST }: Omit<CalmlyOptions<never>, 'judge'>,
): Promise<HostRecord & { readonly runs: T[][] }> {
  const runs = targets.map((): T[] => []);
  const taken: Interference[] = [];
  let repeated = 0;
  let disturbed = 0;
  for (let round = 0; round < rounds; round++) {
    const measured = await calmly(
      async () => {
        const results: { index: number; result: T; taken: Interference }[] = [];
        for (const target of rotatedOrder(round, targets)) {
          const meter = host.meter();
          const result = await measure(target, round);
          results.push({ index: targets.indexOf(target), result, taken: meter.read() });
        }
        return results;
      },
      { sensitivity, judge: (results) => worst(results.map((r) => r.taken)), host },
    );
    for (const { index, result } of measured.result) runs[index]!.push(result);
    taken.push(...measured.taken);
    repeated += measured.repeated;
    disturbed += measured.disturbed;
  }
  return { runs, sensitivity, taken, repeated, disturbed };
}

/** Pause shares read as milliseconds per second of CPU time. */
const msPerSec = (share: number): string => `${(share * 1000).toFixed(1)} ms/s`;

/** One report note on what the host took during the measurements of a scenario. */
export function hostNote(records: readonly HostRecord[]): string {
  const counted = records.flatMap((r) => r.taken);
  const steal = counted.map((t) => t.steal).filter((s) => !Number.isNaN(s));
  const latency = records.filter((r) => r.sensitivity === 'latency');
  const paused = latency
    .flatMap((r) => r.taken.map((t) => t.paused))
    .filter((p) => !Number.isNaN(p));
  const parts = [
    steal.length === 0
      ? 'host CPU steal: unknown on this system (no /proc/stat)'
      : `host CPU steal during the counted measurements: median ${percent(median(steal))}, ` +
        `at most ${percent(Math.max(...steal))}`,
  ];
  if (latency.length > 0) {
    parts.push(
      paused.length === 0
        ? 'host pauses: unknown (no probe at real-time priority: taskset or chrt missing or ' +
            'not permitted), so latency runs are judged by steal alone'
        : `host pauses (a CPU not run for ${PAUSE_MS} ms or more, not reported as steal) during ` +
            `the counted latency measurements: median ${msPerSec(median(paused))}, at most ` +
            `${msPerSec(Math.max(...paused))}`,
    );
  }
  const repeated = records.reduce((n, r) => n + r.repeated, 0);
  const disturbed = records.reduce((n, r) => n + r.disturbed, 0);
  const pauseRule =
    paused.length > 0
      ? ` (latency measurements: or pauses exceeded ${msPerSec(MAX.latency.paused)})`
      : '';
  parts.push(
    `each waits for a calm second (≤ ${percent(CALM.throughput.steal)} steal` +
      (paused.length > 0 ? `, for latency also ≤ ${msPerSec(CALM.latency.paused)} paused` : '') +
      `) and is measured again when steal exceeded ${percent(MAX.throughput.steal)}` +
      `${pauseRule}: ${repeated} repeated` +
      (disturbed > 0 ? `, ${disturbed} counted after ${MAX_REPEATS} repeats still above it` : ''),
  );
  return parts.join('; ');
}
