import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

/**
 * Host pauses: stretches of 5 ms and more in which the hypervisor ran nothing on one of this
 * virtual machine's CPUs and did not report it as steal. On the development machine they come in
 * spells of minutes, 10-30 ms each, several a second, and on both CPUs at once as often as not; a
 * process at real-time priority sees them as well as the servers do. They barely move a
 * throughput figure, but each puts a few hundred requests of a paced load 10-30 ms late, and a
 * p99 over ten seconds is made of that.
 *
 * One probe per CPU (host-pause-probe.mjs), pinned with `taskset` and raised to real-time priority
 * with `chrt`, reports every late wake-up. Where that is not possible (no util-linux, no
 * permission to raise priority) pauses are unknown: a probe at normal priority would see our own
 * load's scheduling delays as well.
 */
export const PAUSE_MS = 5;

const PROBE = fileURLToPath(new URL('./host-pause-probe.mjs', import.meta.url));
const STARTUP_TIMEOUT_MS = 10_000;
/** SCHED_FIFO priority of the probes: above every normal process, below the kernel's own. */
const PROBE_PRIORITY = '50';

interface Pause {
  /** When the probe should have woken, epoch ms. */
  readonly at: number;
  readonly ms: number;
}

export class HostPauses {
  private constructor(
    private readonly probes: readonly ChildProcess[],
    private readonly pauses: readonly Pause[],
  ) {}

  /** Starts one probe per CPU; undefined when probes cannot run at real-time priority here. */
  static async start(): Promise<HostPauses | undefined> {
    const pauses: Pause[] = [];
    const cpus = Array.from({ length: availableParallelism() }, (_, cpu) => cpu);
    const started = await Promise.all(cpus.map((cpu) => startProbe(cpu, pauses)));
    const probes = started.filter((probe): probe is ChildProcess => probe !== undefined);
    if (probes.length === cpus.length) return new HostPauses(probes, pauses);
    for (const probe of probes) probe.kill('SIGKILL');
    return undefined;
  }

  /** How many CPUs are watched. */
  get cpus(): number {
    return this.probes.length;
  }

  /** The probes' process ids, one per CPU. */
  get pids(): number[] {
    return this.probes.map((probe) => probe.pid ?? -1);
  }

  /** Milliseconds of host pause between two epoch times, summed over the CPUs. */
  pausedMs(from: number, to: number): number {
    let total = 0;
    for (const { at, ms } of this.pauses)
      total += Math.max(0, Math.min(to, at + ms) - Math.max(from, at));
    return total;
  }

  /** SIGKILL: a probe's loop never yields to the event loop. */
  stop(): void {
    for (const probe of this.probes) probe.kill('SIGKILL');
  }
}

/**
 * A probe pinned to `cpu` that adds what it sees to `pauses`, once it runs with its main thread at
 * real-time priority; undefined if it could not get there.
 */
async function startProbe(cpu: number, pauses: Pause[]): Promise<ChildProcess | undefined> {
  const probe = spawn(
    'taskset',
    ['--cpu-list', String(cpu), process.execPath, PROBE, String(PAUSE_MS)],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const output = probe.stdout as Socket;
  const lines = createInterface({ input: output });
  let timer: NodeJS.Timeout | undefined;
  const ready = await new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), STARTUP_TIMEOUT_MS);
    probe.once('error', () => resolve(false));
    probe.once('exit', () => resolve(false));
    lines.on('line', (line) => {
      if (line === 'ready') return resolve(true);
      const [at, ms] = line.split(' ').map(Number);
      if (at !== undefined && ms !== undefined) pauses.push({ at, ms });
    });
  });
  clearTimeout(timer);
  // Only the main thread, which does nothing but sleep and measure: node's other threads stay
  // at normal priority, where they cannot starve anyone.
  if (!ready || !(await raisePriority(probe.pid))) {
    probe.kill('SIGKILL');
    return undefined;
  }
  // The bench's own process may end without stop(): the probes notice and exit by themselves.
  probe.unref();
  output.unref();
  return probe;
}

/** `chrt --fifo --pid`: moves one thread (here a process' main thread) to SCHED_FIFO. */
function raisePriority(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return Promise.resolve(false);
  return new Promise((resolve) => {
    execFile('chrt', ['--fifo', '--pid', PROBE_PRIORITY, String(pid)], (err) => resolve(!err));
  });
}
