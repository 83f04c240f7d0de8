import { Redis, type RedisOptions } from 'ioredis';
import type { RedisEndpoint } from '../config/redis.js';
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
 * connection's life. Every connection the processes make, blocking readers and subscribers
 * included, is made here, so each follows the endpoint the same way.
 */
export function createRedis(endpoint: RedisEndpoint, options: RedisClientOptions): Redis {
  const settings: RedisOptions = {
    connectionName: options.name,
    maxRetriesPerRequest: 1,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2_000),
    reconnectOnError,
    ...(options.commandTimeoutMs ? { commandTimeout: options.commandTimeoutMs } : {}),
  };
  const redis =
    endpoint.kind === 'url'
      ? new Redis(endpoint.url, settings)
      : new Redis({ ...sentinelOptions(endpoint), ...settings });
  redis.on('connect', () => coalesceWrites(redis.stream, options.flush ?? 'callback'));
  return redis;
}

/**
 * The primary through Sentinel: each (re)connection asks the sentinels, in turn, where the
 * primary of `name` is, and checks that the server it reaches says it is a primary (ioredis' ready
 * check), so a reconnect after a failover lands on the promoted replica.
 */
function sentinelOptions(endpoint: Extract<RedisEndpoint, { kind: 'sentinel' }>): RedisOptions {
  return {
    sentinels: [...endpoint.sentinels],
    name: endpoint.name,
    username: endpoint.username,
    password: endpoint.password,
    sentinelUsername: endpoint.sentinelUsername,
    sentinelPassword: endpoint.sentinelPassword,
    // A sentinel that accepts the connection and then never answers must not hold the
    // reconnect up: the next one is asked instead.
    sentinelCommandTimeout: SENTINEL_COMMAND_TIMEOUT_MS,
  };
}

const SENTINEL_COMMAND_TIMEOUT_MS = 2_000;

/**
 * A connection still open to a primary that was demoted (a failover the clients did not see as
 * a disconnect: Sentinel's, or a managed service's behind one address) answers writes with
 * READONLY and ends blocking reads with UNBLOCKED. Neither ran the command, so ioredis reconnects,
 * which finds the new primary, and sends it again (2).
 */
function reconnectOnError(err: Error): 2 | false {
  return /^(READONLY|UNBLOCKED)\b/.test(err.message) ? 2 : false;
}
