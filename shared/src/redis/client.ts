import { Redis, type RedisOptions } from 'ioredis';
import { coalesceWrites, type WriteFlush } from '../net/coalesce-writes.js';

export interface RedisClientOptions {
  /** Connection name shown by CLIENT LIST, e.g. `api`, `api:sub`. */
  readonly name: string;
  /**
   * Fail a command after this many ms instead of letting a request hang while Redis is away.
   * Leave unset for connections that issue blocking reads (XREADGROUP BLOCK, SUBSCRIBE).
   */
  readonly commandTimeoutMs?: number;
  /** When the commands gathered on the connection leave (see WriteFlush); `callback` by default. */
  readonly flush?: WriteFlush;
}

/**
 * One policy for every connection: reconnect forever with capped back-off, but fail queued
 * commands after one reconnect attempt, so callers answer 5xx quickly rather than hang. ioredis
 * turns Nagle off (its `noDelay` defaults to true), so the commands of one callback (or one
 * event-loop turn) are coalesced into one write (see coalesceWrites) on every socket of the
 * connection's life.
 */
export function createRedis(url: string, options: RedisClientOptions): Redis {
  const settings: RedisOptions = {
    connectionName: options.name,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
    ...(options.commandTimeoutMs ? { commandTimeout: options.commandTimeoutMs } : {}),
  };
  const redis = new Redis(url, settings);
  redis.on('connect', () => coalesceWrites(redis.stream, options.flush ?? 'callback'));
  return redis;
}
