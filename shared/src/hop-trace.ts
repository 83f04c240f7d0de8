/**
 * Per-hop timestamps of a sample of commands, for the benchmark's latency breakdown
 * (tools/bench/README.md, "Where a command's time goes"). Off unless a benchmark server turns it
 * on; off, `mark` is one comparison. On, it records the monotonic clock (CLOCK_MONOTONIC, the same
 * clock in every process of a machine, so stamps of the api, the media node and the load
 * generator compare directly) for the operations whose id falls in the sample: the last two hex
 * digits of the (random) operation id decide, so every process picks the same operations
 * without telling each other.
 */
export type HopMarks = Record<string, Record<string, number>>;

const MAX_OPERATIONS = 20_000;

class HopTrace {
  /** Sampled when the id's last byte is below this; 0 = off. */
  private threshold = 0;
  private marks: HopMarks = {};
  private count = 0;

  /** Starts sampling `fraction` (0 to 1) of the operations. */
  enable(fraction: number): void {
    this.threshold = Math.round(Math.min(1, Math.max(0, fraction)) * 256);
  }

  sampled(operationId: string): boolean {
    return this.threshold > 0 && Number.parseInt(operationId.slice(-2), 16) < this.threshold;
  }

  /**
   * Stamps `hop` of a sampled operation with the monotonic clock in ms (now, or `at`: a time
   * taken before the operation id was known); the first stamp of a hop wins.
   */
  mark(operationId: string, hop: string, at?: number): void {
    if (this.threshold === 0 || !this.sampled(operationId)) return;
    let hops = this.marks[operationId];
    if (!hops) {
      if (this.count >= MAX_OPERATIONS) return;
      this.count++;
      hops = this.marks[operationId] = {};
    }
    hops[hop] ??= at ?? monotonicMs();
  }

  /** The stamps so far, forgotten here. */
  take(): HopMarks {
    const marks = this.marks;
    this.marks = {};
    this.count = 0;
    return marks;
  }
}

export const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

export const hopTrace = new HopTrace();
