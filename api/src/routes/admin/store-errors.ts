import { GatewayError } from '../../errors/catalogue.js';
import { ReplyError, type Redis } from 'ioredis';

/** Redis error replies that mean "not available now" rather than "this operation is wrong". */
const UNAVAILABLE_REPLIES = /^(LOADING|MASTERDOWN|TRYAGAIN|BUSY|CLUSTERDOWN)\b/;

/**
 * Whether a failed configuration-store call means Redis cannot be reached. ioredis gives no
 * class for its command timeout, and MaxRetriesPerRequestError is not exported, so the
 * connection state decides first and the error's name second.
 */
function isUnavailable(error: unknown, redis: Redis): boolean {
  if (error instanceof ReplyError) {
    return UNAVAILABLE_REPLIES.test((error as Error).message);
  }
  if (redis.status !== 'ready') return true;
  if (!(error instanceof Error)) return false;
  return error.name === 'MaxRetriesPerRequestError' || error.message === 'Command timed out';
}

/**
 * Runs one admin read or write: a catalogue error passes through; Redis out of reach is 503
 * `Configuration store unavailable`; any other failure is 500 ADMIN_STORE_FAILED.
 */
export async function withStore<T>(redis: Redis, operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (cause) {
    if (cause instanceof GatewayError) throw cause;
    const code = isUnavailable(cause, redis) ? 'CONFIG_STORE_UNAVAILABLE' : 'ADMIN_STORE_FAILED';
    throw new GatewayError(code, { cause });
  }
}
