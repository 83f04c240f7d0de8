/**
 * When to try a webhook again. DESIGN's schedule (Standard Webhooks / Svix): the first attempt
 * at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure, each delay varied
 * by ±20 % so that many failing events do not retry in lockstep. A `Retry-After` on 429 or 503
 * may lengthen the next delay (clamped), never shorten it: every attempt counts, so a receiver
 * answering `Retry-After: 1` must not spend an event's attempts in seconds and dead-letter it
 * long before the schedule's span.
 */
export const DEFAULT_RETRY_SCHEDULE = '0,5s,5m,30m,2h,5h,10h,10h';
export const SCHEDULE_PATTERN = '^\\d+(ms|s|m|h)?(,\\d+(ms|s|m|h)?)*$';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `0,5s,5m` → [0, 5000, 300000]; a bare number is milliseconds. */
export function parseSchedule(text: string): number[] {
  return text.split(',').map((step) => {
    const match = /^(\d+)(ms|s|m|h)?$/.exec(step.trim());
    if (!match) throw new Error(`invalid retry schedule step: ${step}`);
    return Number(match[1]) * (UNIT_MS[match[2] ?? 'ms'] ?? 1);
  });
}

export interface RetryPolicyOptions {
  readonly schedule: readonly number[];
  readonly jitter: number;
  readonly retryAfterMaxMs: number;
  readonly random?: () => number;
}

export class RetryPolicy {
  constructor(private readonly o: RetryPolicyOptions) {}

  /** Attempts an event gets before it is dead-lettered. */
  get attempts(): number {
    return this.o.schedule.length;
  }

  /**
   * The delay before the next attempt after `made` attempts have failed, or undefined when the
   * event has had all its attempts. A receiver's `Retry-After` is clamped to `retryAfterMaxMs`
   * and used only when it is longer than the schedule's delay.
   */
  nextDelay(made: number, retryAfterMs?: number): number | undefined {
    if (made >= this.o.schedule.length) return undefined;
    const base = this.o.schedule[made] ?? 0;
    const spread = ((this.o.random ?? Math.random)() * 2 - 1) * this.o.jitter;
    const scheduled = Math.max(0, Math.round(base * (1 + spread)));
    if (retryAfterMs === undefined) return scheduled;
    return Math.max(scheduled, Math.min(Math.max(0, retryAfterMs), this.o.retryAfterMaxMs));
  }
}

/** `Retry-After` as milliseconds from now: delta seconds or an HTTP date; undefined if absent. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
