import { Worker } from 'node:worker_threads';

/** How long a process whose launcher is gone has to shut down by itself before it is killed. */
export const ORPHAN_GRACE_MS = 5_000;

/**
 * Calls `orphaned` once when the parent that opened this process's IPC channel goes away, and
 * kills the process if it is still running ORPHAN_GRACE_MS later. The deadline runs in a worker
 * thread: with the launcher gone, a shutdown that logs can block the main thread for good (a
 * pretty-printing log transport waits on its worker, which cannot write to the closed pipe), so
 * no timer of the main thread's could be trusted to fire. Without a channel (a process started
 * by hand) it does nothing; the channel does not keep the process alive by itself.
 */
export function tetherToParent(orphaned: () => void): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => {
    const deadline = `setTimeout(() => process.kill(${process.pid}, 'SIGKILL'), ${ORPHAN_GRACE_MS});`;
    new Worker(deadline, { eval: true }).unref();
    orphaned();
  });
}
