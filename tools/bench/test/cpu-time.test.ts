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
    const spinUntil = performance.now() + 20;
    while (performance.now() < spinUntil); // 20 ms on the CPU: two clock ticks, counted exactly
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 3));
    const after = processActivity(process.pid);
    expect(after!.cpuMs - before!.cpuMs).toBeGreaterThanOrEqual(15);
    expect(after!.wakeups - before!.wakeups).toBeGreaterThanOrEqual(5);
  });

  it('is undefined for a process that does not exist', () => {
    expect(processActivity(2 ** 22 + 1)).toBeUndefined();
  });
});
