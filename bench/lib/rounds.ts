import { percent } from './format.js';
import { calmHost, StealMeter } from './steal.js';
import { median } from './stats.js';

/** A round counts only when the host stole at most this share of the CPU during it. */
const MAX_STEAL = 0.1;
/** Before a round, wait for a second with at most this much steal... */
const CALM_STEAL = 0.05;
/** ...but no longer than this. */
const CALM_WAIT_MS = 120_000;
/** A stolen round is measured again at most this many times; then it counts as it is. */
const MAX_REPEATS = 3;

/** How much the host stole during measurements that counted, and what was measured again. */
export interface StealRecord {
  /** Per counted measurement, the steal share (0..1) during it; NaN where unknown. */
  readonly steal: readonly number[];
  /** Measurements repeated because the host stole more than MAX_STEAL during them. */
  readonly repeated: number;
  /** Measurements counted although still stolen from after MAX_REPEATS repeats. */
  readonly stolen: number;
}

/** Where steal is read: this machine's /proc/stat, or a script of shares in tests. */
export interface Host {
  /** Resolves once the host is calm enough to measure on. */
  calm(): Promise<unknown>;
  /** Starts measuring steal; `share()` is the share stolen since. */
  meter(): { share(): number };
}

export const THIS_HOST: Host = {
  calm: () => calmHost(CALM_STEAL, CALM_WAIT_MS),
  meter: () => StealMeter.start(),
};

export interface CalmlyOptions<T> {
  /** The steal to judge a measurement by (the worst of its runs, say); else the overall share. */
  readonly steal?: (result: T, overall: number) => number;
  readonly host?: Host;
}

/**
 * Runs `measure` on a calm host (see steal.ts) and again, up to MAX_REPEATS times, while the
 * hypervisor stole more than MAX_STEAL of the CPU during it.
 */
export async function calmly<T>(
  measure: () => Promise<T>,
  { steal = (_, overall) => overall, host = THIS_HOST }: CalmlyOptions<T> = {},
): Promise<StealRecord & { readonly result: T }> {
  for (let attempt = 0; ; attempt++) {
    await host.calm();
    const meter = host.meter();
    const result = await measure();
    const share = steal(result, meter.share());
    if (share > MAX_STEAL && attempt < MAX_REPEATS) continue;
    return { result, steal: [share], repeated: attempt, stolen: share > MAX_STEAL ? 1 : 0 };
  }
}

/** Each target's runs in round order: runs of the same index were side by side in time. */
export interface Alternated<K extends string, T> extends StealRecord {
  readonly runs: Record<K, T[]>;
}

/**
 * Runs `measure` for two targets, round after round, alternating which goes first (ABBA), so that
 * both see the same drift of a shared machine; reports take the median round. Each round is
 * measured `calmly`, judged by the worse steal of its two runs: the same rule for both targets.
 */
export async function alternate<A extends string, B extends string, T>(
  rounds: number,
  [first, second]: readonly [A, B],
  measure: (target: A | B, round: number) => Promise<T>,
  host: Host = THIS_HOST,
): Promise<Alternated<A | B, T>> {
  const runs = { [first]: [] as T[], [second]: [] as T[] } as Record<A | B, T[]>;
  const record = { steal: [] as number[], repeated: 0, stolen: 0 };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [first, second] : [second, first];
    const measured = await calmly(
      async () => {
        const results: { target: A | B; result: T; steal: number }[] = [];
        for (const target of order) {
          const meter = host.meter();
          results.push({ target, result: await measure(target, round), steal: meter.share() });
        }
        return results;
      },
      { steal: (results) => Math.max(...results.map((r) => r.steal)), host },
    );
    for (const { target, result } of measured.result) runs[target].push(result);
    record.steal.push(...measured.steal);
    record.repeated += measured.repeated;
    record.stolen += measured.stolen;
  }
  return { runs, ...record };
}

/** One report note on how much the host stole during the measurements of a scenario. */
export function stealNote(records: readonly StealRecord[]): string {
  const steal = records.flatMap((r) => r.steal).filter((s) => !Number.isNaN(s));
  if (steal.length === 0) return 'host CPU steal: unknown on this system (no /proc/stat)';
  const repeated = records.reduce((n, r) => n + r.repeated, 0);
  const stolen = records.reduce((n, r) => n + r.stolen, 0);
  return (
    `host CPU steal during the counted measurements: median ${percent(median(steal))}, at most ` +
    `${percent(Math.max(...steal))}; each waits for a calm host (≤ ${percent(CALM_STEAL)} over a ` +
    `second) and is measured again when steal exceeded ${percent(MAX_STEAL)}: ` +
    `${repeated} repeated` +
    (stolen > 0 ? `, ${stolen} counted after ${MAX_REPEATS} repeats still above it` : '')
  );
}
