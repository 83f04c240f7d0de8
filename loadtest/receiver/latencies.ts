/** Latency samples (ms) with exact nearest-rank percentiles, computed when asked. */
export class Latencies {
  private values: number[] = [];

  add(ms: number): void {
    this.values.push(ms);
  }

  get count(): number {
    return this.values.length;
  }

  summary(): { count: number; p50: number; p90: number; p99: number; max: number } | null {
    if (this.values.length === 0) return null;
    const sorted = [...this.values].sort((a, b) => a - b);
    const at = (q: number): number =>
      round(sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN);
    return {
      count: sorted.length,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: round(sorted[sorted.length - 1] ?? Number.NaN),
    };
  }

  clear(): void {
    this.values = [];
  }
}

const round = (ms: number): number => Math.round(ms * 100) / 100;
