import type { Logger } from '../logger.js';

/**
 * Exits once `closing` settles: 0 when it resolved, 1 when it failed or had not settled after
 * `deadlineMs` (the last resort, should a step on the way out ignore its own deadline).
 */
export function exitWhenClosed(closing: Promise<void>, deadlineMs: number, log: Logger): void {
  setTimeout(() => {
    log.error({ deadline_ms: deadlineMs }, 'shutdown overran its deadline: exiting');
    process.exit(1);
  }, deadlineMs).unref();
  closing.then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err }, 'unclean shutdown');
      process.exit(1);
    },
  );
}

/**
 * Closes the process on its first SIGINT or SIGTERM. Later signals are logged and change nothing:
 * Ctrl-C under a launcher delivers one from the terminal and one from the launcher, and with
 * `process.once` the second would kill the process before it committed its work.
 */
export function closeOnSignals(close: () => Promise<void>, deadlineMs: number, log: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      log.info({ signal }, 'already shutting down');
      return;
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    exitWhenClosed(close(), deadlineMs, log);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
