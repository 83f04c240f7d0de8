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
