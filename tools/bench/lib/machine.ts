import { availableParallelism, cpus, loadavg, platform, release, totalmem } from 'node:os';

/** The machine the figures were measured on; without it a benchmark table means little. */
export interface MachineInfo {
  readonly node: string;
  readonly cpuModel: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly os: string;
  /** 1-minute load average at start: other work on the machine skews every figure. */
  readonly loadAverage: number;
}

export function machineInfo(): MachineInfo {
  const [first] = cpus();
  return {
    node: process.version,
    cpuModel: first?.model.trim() ?? 'unknown',
    cores: availableParallelism(),
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `${platform()} ${release()}`,
    loadAverage: loadavg()[0] ?? 0,
  };
}
