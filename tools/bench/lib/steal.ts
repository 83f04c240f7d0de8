import { readFileSync } from 'node:fs';

/**
 * CPU steal: time the hypervisor gave this virtual machine's cores to someone else. On a shared
 * host it comes and goes within seconds and can take most of the CPU, and every process of a
 * measurement then runs slower, in bursts. A figure measured under heavy steal says nothing
 * about our code, so the rounds (see rounds.ts) wait for a calm host and repeat a round that
 * was stolen from. Steal is read from /proc/stat; what the hypervisor takes without reporting it
 * is measured by host-pauses.ts.
 */

/** Cumulative CPU ticks of the whole machine, from the first line of /proc/stat. */
interface Ticks {
  readonly total: number;
  readonly steal: number;
}

function readTicks(): Ticks | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    // cpu user nice system idle iowait irq softirq steal guest guest_nice
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
    if (fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return undefined;
    return { total: fields.reduce((a, b) => a + b, 0), steal: fields[7] ?? 0 };
  } catch {
    return undefined; // not Linux: steal is unknown
  }
}

/** Share of the machine's CPU time stolen between two readings; NaN when unknown. */
function share(from: Ticks | undefined, to: Ticks | undefined): number {
  if (!from || !to || to.total <= from.total) return Number.NaN;
  return (to.steal - from.steal) / (to.total - from.total);
}

/** Measures the steal share over a stretch of time: `start()`, then `share()` at its end. */
export class StealMeter {
  private constructor(private readonly from: Ticks | undefined) {}

  static start(): StealMeter {
    return new StealMeter(readTicks());
  }

  /** Steal share since start, 0..1; NaN where /proc/stat is not available. */
  share(): number {
    return share(this.from, readTicks());
  }
}
