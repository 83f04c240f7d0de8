import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/** What a process has done so far: CPU time of all its threads, and its event loop's wake-ups. */
export interface Activity {
  /** User + system time of every live thread (ms, to the nanosecond: schedstat, not ticks). */
  readonly cpuMs: number;
  /** Times the main thread gave up the CPU to wait (a wake-up each time it is woken again). */
  readonly wakeups: number;
}

/**
 * A process's activity so far, from /proc (Linux; undefined elsewhere, or once it is gone).
 * `processCpuMs` counts in clock ticks (10 ms), too coarse for an idle process at a millisecond
 * a second; schedstat's run time is exact, summed over the threads (GC helpers, Redis's
 * background threads). A thread that exited takes its time with it; the processes measured keep
 * theirs. The main thread's voluntary context switches count its wake-ups: an event loop blocks
 * once per turn, so each is a timer, a socket or a signal that woke it.
 */
export function processActivity(pid: number): Activity | undefined {
  try {
    let runNs = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) runNs += threadRunNs(pid, task);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const wakeups = Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? Number.NaN);
    return { cpuMs: runNs / 1e6, wakeups };
  } catch {
    return undefined;
  }
}

function threadRunNs(pid: number, task: string): number {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
  } catch {
    return 0; // the thread ended between the listing and the read
  }
}
