/** How 429 and 503 answers are retried. */
export interface RetryOptions {
  /** Retries after the first attempt; 0 turns retrying off. Default 3. */
  readonly retries: number;
  /** First back-off, doubled per retry (with jitter) when the answer has no Retry-After. */
  readonly baseDelayMs: number;
  /** Longest wait before a retry; a Retry-After beyond it is not waited for (the error is thrown). */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { retries: 3, baseDelayMs: 200, maxDelayMs: 30_000 };
const NO_RETRY: RetryOptions = { ...DEFAULT_RETRY, retries: 0 };

/** Statuses that say "not done, try later": the rate limits and missing capacity. */
export const RETRIED_STATUSES: ReadonlySet<number> = new Set([429, 503]);

export function retryOptions(option: Partial<RetryOptions> | false | undefined): RetryOptions {
  if (option === false) return NO_RETRY;
  return { ...DEFAULT_RETRY, ...option };
}

/** Retry-After as ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * The wait before retry number `attempt` (0-based): the server's Retry-After when given,
 * otherwise exponential back-off with full jitter; undefined when it exceeds `maxDelayMs`.
 */
export function retryDelay(
  options: RetryOptions,
  attempt: number,
  retryAfter: number | undefined,
): number | undefined {
  const delay =
    retryAfter ?? Math.random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt);
  return delay > options.maxDelayMs ? undefined : delay;
}
