import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostPauses } from '../lib/host-pauses.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// The probes need taskset and chrt and the right to raise a process to real-time priority.
const pauses = await HostPauses.start();
if (!pauses)
  console.warn('host-pauses tests skipped: probes cannot run at real-time priority here');

describe.skipIf(!pauses)('HostPauses', () => {
  const probes = pauses!;
  beforeAll(() => sleep(200));
  afterAll(() => probes.stop());

  it('runs one probe per CPU', () => {
    expect(probes.cpus).toBe(availableParallelism());
    expect(probes.pids.every((pid) => pid > 0)).toBe(true);
  });

  it('reports a CPU not run for 60 ms as a pause of about that long', async () => {
    // A stopped probe wakes up late exactly as one whose CPU the host did not run.
    const [pid] = probes.pids;
    const from = Date.now();
    process.kill(pid!, 'SIGSTOP');
    await sleep(60);
    process.kill(pid!, 'SIGCONT');
    await sleep(100);
    const to = Date.now();
    const paused = probes.pausedMs(from, to);
    // Other probes may see real host pauses meanwhile; the stopped one saw at least its own.
    expect(paused).toBeGreaterThanOrEqual(55);
    expect(paused).toBeLessThan(1000);
  });
});
