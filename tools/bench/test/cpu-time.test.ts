import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { processActivity, runQueueWait } from '../lib/cpu-time.js';

// schedstat is Linux's (and needs CONFIG_SCHED_INFO); elsewhere the bench prints n/a instead.
const NO_SCHEDSTAT = !existsSync(`/proc/${process.pid}/task/${process.pid}/schedstat`);

describe.skipIf(NO_SCHEDSTAT)(
  `runQueueWait${NO_SCHEDSTAT ? ' (skipped: no /proc/<pid>/task/<pid>/schedstat here)' : ''}`,
  () => {
    it('counts each wake-up of the event loop, and its wait never shrinks', async () => {
      const before = runQueueWait(process.pid);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 3));
      const after = runQueueWait(process.pid);
      expect(before).toBeDefined();
      expect(after!.runs - before!.runs).toBeGreaterThanOrEqual(5);
      expect(after!.waitMs).toBeGreaterThanOrEqual(before!.waitMs);
    });

    it('is undefined for a process that does not exist', () => {
      expect(runQueueWait(2 ** 22 + 1)).toBeUndefined();
    });
  },
);

describe.skipIf(NO_SCHEDSTAT)('processActivity', () => {
  it('counts the CPU time of the process to the millisecond, and each wake-up of its loop', async () => {
    const before = processActivity(process.pid);
    // 20 ms on the CPU (two clock ticks), by the process's own clock: on a busy machine wall
    // time passes while the process waits for a core.
    const cpuMs = (): number => {
      const { user, system } = process.cpuUsage();
      return (user + system) / 1000;
    };
    const spinUntil = cpuMs() + 20;
    while (cpuMs() < spinUntil);
    // Each wait blocks the event loop until its timer wakes it.
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    const after = processActivity(process.pid);
    expect(after!.cpuMs - before!.cpuMs).toBeGreaterThanOrEqual(19);
    // A timer already due when the loop polls (the process waited for a core) wakes nothing.
    expect(after!.wakeups - before!.wakeups).toBeGreaterThanOrEqual(3);
  });

  it('is undefined for a process that does not exist', () => {
    expect(processActivity(2 ** 22 + 1)).toBeUndefined();
  });
});
