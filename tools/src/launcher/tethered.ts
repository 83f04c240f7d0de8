/** How long a process whose launcher is gone has to shut down by itself before it exits. */
export const ORPHAN_GRACE_MS = 5_000;

/**
 * Calls `orphaned` once when the parent that opened this process's IPC channel goes away, then
 * exits the process if it is still running after ORPHAN_GRACE_MS. Without a channel (a process
 * started by hand) it does nothing. The channel does not keep the process alive by itself.
 */
export function tetherToParent(orphaned: () => void): void {
  if (!process.channel) return;
  process.channel.unref();
  process.once('disconnect', () => {
    setTimeout(() => process.exit(1), ORPHAN_GRACE_MS).unref();
    orphaned();
  });
}
