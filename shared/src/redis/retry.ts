import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../logger.js';

/**
 * Runs a Redis write until Redis has taken it. For writes the process has already promised to
 * someone (an event of a call, a command's result, the acknowledgement after it): they wait
 * through an outage instead of being lost.
 */
export type UntilWritten = <T>(what: string, write: () => Promise<T>) => Promise<T>;

/** One attempt: a failure fails the write (the api answers 5xx rather than hold a request). */
export const writeOnce: UntilWritten = (_what, write) => write();

export interface UntilWrittenOptions {
  readonly log: Logger;
  /** Aborted when the process gives up on Redis (a shutdown deadline): the write then fails. */
  readonly signal: AbortSignal;
  /** Longest wait between attempts. */
  readonly maxDelayMs?: number;
}

/** Thrown by an UntilWritten whose signal was aborted before Redis came back. */
export class RedisWriteAbandoned extends Error {
  constructor(what: string, options: { cause: unknown }) {
    super(`${what}: Redis unavailable until shutdown`, options);
    this.name = 'RedisWriteAbandoned';
  }
}

/** ioredis' own errors for a command that never got a reply (it names them only by message). */
const NO_REPLY = [/^Connection is closed/, /^Command timed out/, /^Stream isn't writeable/];
/**
 * Redis' error replies that mean "not now" (a restarted Redis loading its AOF, a failover, a
 * primary with `min-replicas-to-write` and too few replicas): each refused the write before
 * making it.
 */
const NOT_NOW = /^(LOADING|BUSY|TRYAGAIN|MASTERDOWN|READONLY|NOREPLICAS)\b/;

/**
 * Redis did not take the command (connection refused or lost, ioredis' MaxRetriesPerRequestError,
 * a command timeout, a restarted Redis still loading its AOF, a primary without enough replicas),
 * as opposed to a reply by which Redis refused it (a script's error, a wrong type) or a bug: only
 * the first is worth retrying.
 */
export function isRedisUnavailable(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err instanceof RedisWriteAbandoned) return true;
  if (err.name === 'MaxRetriesPerRequestError') return true;
  if (err.name === 'ReplyError') return NOT_NOW.test(err.message);
  const code = (err as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return true;
  return NO_REPLY.some((pattern) => pattern.test(err.message));
}

export function untilWritten(options: UntilWrittenOptions): UntilWritten {
  const { log, signal, maxDelayMs = 2000 } = options;
  return async (what, write) => {
    for (let attempt = 0; ; attempt++) {
      try {
        const reply = await write();
        if (attempt > 0) log.info({ what, attempts: attempt + 1 }, 'redis write went through');
        return reply;
      } catch (err) {
        if (!isRedisUnavailable(err)) throw err;
        if (signal.aborted) throw new RedisWriteAbandoned(what, { cause: err });
        if (attempt === 0) log.warn({ err, what }, 'redis unavailable: retrying the write');
        try {
          await sleep(Math.min(maxDelayMs, 50 * 2 ** attempt), undefined, { signal });
        } catch {
          throw new RedisWriteAbandoned(what, { cause: err });
        }
      }
    }
  };
}
