import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    const out = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout;
    ticksPerSecond = Number(out) > 0 ? Number(out) : 100;
  }
  return ticksPerSecond;
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux); undefined where
 * there is no /proc. CPU per request does not depend on what else the machine runs, unlike
 * requests/s and latency, so it is the figure to compare across busy runs.
 */
export function processCpuMs(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may contain spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}

/** How long a thread has waited, runnable, for a CPU, and how many times it was given one. */
export interface RunQueueWait {
  readonly waitMs: number;
  readonly runs: number;
}

/**
 * The run-queue wait of a process's main thread (its event loop) so far, from
 * `/proc/<pid>/task/<pid>/schedstat` (Linux); undefined where there is no such file. When more
 * processes are busy than there are cores, every message between processes waits this long per
 * wake-up before its receiver runs, on top of the receiver's work: the part of a hop's time that
 * is the machine's, not the program's.
 */
export function runQueueWait(pid: number): RunQueueWait | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ');
    return { waitMs: Number(fields[1]) / 1e6, runs: Number(fields[2]) };
  } catch {
    return undefined;
  }
}
