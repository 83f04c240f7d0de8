/** Latency samples of one measurement, in ms, with exact percentiles (no histogram buckets). */
export class LatencySamples {
  private values: Float64Array;
  private size = 0;

  /** `expected`: how many samples to make room for at once, so none is added by growing. */
  constructor(expected = 1 << 16) {
    this.values = new Float64Array(Math.max(1, expected));
  }

  add(ms: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.size++] = ms;
  }

  get count(): number {
    return this.size;
  }

  /** Nearest-rank percentile, q in (0, 1]; NaN without samples. */
  percentiles(...qs: number[]): number[] {
    const sorted = this.values.slice(0, this.size).sort();
    return qs.map((q) => sorted[Math.max(0, Math.ceil(q * this.size) - 1)] ?? Number.NaN);
  }
}

/** Response status counts of one measurement, plus transport errors (status 0). */
export class StatusCounts {
  private readonly counts = new Map<number, number>();

  add(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
  }

  /** Responses other than `expected`, transport errors and timeouts included. */
  unexpected(expected: number): number {
    let n = 0;
    for (const [status, count] of this.counts) if (status !== expected) n += count;
    return n;
  }

  /** `202×1000, 429×3, error×1`, for notes. */
  describe(): string {
    return [...this.counts]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status === 0 ? 'error' : status}×${count}`)
      .join(', ');
  }
}

/** What one measurement of one target yields. */
export interface LoadResult {
  /** Completed responses of any status. */
  readonly responses: number;
  readonly seconds: number;
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Responses that were not the expected status, plus errors and timeouts. */
  readonly unexpected: number;
  readonly statuses: string;
}

export function loadResult(
  latencies: LatencySamples,
  statuses: StatusCounts,
  seconds: number,
  expected: number,
): LoadResult {
  const [p50 = Number.NaN, p99 = Number.NaN] = latencies.percentiles(0.5, 0.99);
  return {
    responses: latencies.count,
    seconds,
    requestsPerSec: latencies.count / seconds,
    p50Ms: p50,
    p99Ms: p99,
    unexpected: statuses.unexpected(expected),
    statuses: statuses.describe(),
  };
}

/** The median of some values (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return Number.NaN;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
