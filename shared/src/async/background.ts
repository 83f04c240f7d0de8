import type { Logger } from '../logger.js';

/**
 * Starts work nobody waits for. A rejection is logged, never left unhandled: Node ends the
 * process on an unhandled rejection, so one failed Redis write in a fire-and-forget chain (a
 * `void p.finally(...)`, which rethrows) would stop a whole node. The lint rule in
 * eslint.config.mjs sends every such chain here.
 */
export function background(work: Promise<unknown>, log: Logger, what: string): void {
  void work.catch((err: unknown) => log.error({ err }, `${what} failed`));
}

/**
 * Waits for `work` at most `ms`: true when it settled in time (a rejection is logged), false when
 * the deadline came first. Shutdown awaits every step through it, so nothing on the way out can
 * hold a process forever.
 */
export async function settledWithin(
  work: Promise<unknown>,
  ms: number,
  log: Logger,
  what: string,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const settled = work.then(
    () => true as const,
    (err: unknown) => {
      log.warn({ err }, `${what} failed`);
      return true as const;
    },
  );
  const inTime = await Promise.race([settled, late]);
  clearTimeout(timer);
  if (!inTime) log.warn({ deadline_ms: ms }, `${what}: deadline passed, going on without it`);
  return inTime;
}
