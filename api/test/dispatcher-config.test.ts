import { describe, expect, it } from 'vitest';
import { loadDispatcherConfig } from '../src/webhooks/config.js';
import { parseRetryAfter, parseSchedule, RetryPolicy } from '../src/webhooks/schedule.js';

const REDIS = { REDIS_URL: 'redis://127.0.0.1:6379' };

describe('dispatcher configuration', () => {
  it('defaults to the Redis bus and the retry schedule of docs/webhooks.md', () => {
    const config = loadDispatcherConfig(REDIS);
    expect(config.EVENT_BUS).toBe('redis');
    expect(config.EVENT_SHARDS).toBe(16);
    expect(config.WEBHOOK_TIMEOUT_MS).toBe(15_000);
    expect(parseSchedule(config.WEBHOOK_RETRY_SCHEDULE)).toEqual([
      0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('refuses the Kafka bus without brokers, and a malformed schedule, naming the variable', () => {
    expect(() => loadDispatcherConfig({ ...REDIS, EVENT_BUS: 'kafka' })).toThrow(
      'KAFKA_BROKERS is required when EVENT_BUS is kafka',
    );
    expect(() => loadDispatcherConfig({ ...REDIS, WEBHOOK_RETRY_SCHEDULE: '0,5 minutes' })).toThrow(
      /WEBHOOK_RETRY_SCHEDULE must match pattern/,
    );
    expect(() => loadDispatcherConfig({ ...REDIS, EVENT_BUS: 'nats' })).toThrow(/EVENT_BUS/);
  });

  it('takes the Kafka consumer fetch wait and concurrency, within their bounds', () => {
    const kafka = { ...REDIS, EVENT_BUS: 'kafka', KAFKA_BROKERS: 'k1:9092' };
    expect(loadDispatcherConfig(kafka)).toMatchObject({
      KAFKA_MAX_WAIT_MS: 100,
      KAFKA_PARTITIONS_CONCURRENCY: 4,
    });
    const tuned = { ...kafka, KAFKA_MAX_WAIT_MS: '10', KAFKA_PARTITIONS_CONCURRENCY: '16' };
    expect(loadDispatcherConfig(tuned)).toMatchObject({
      KAFKA_MAX_WAIT_MS: 10,
      KAFKA_PARTITIONS_CONCURRENCY: 16,
    });
    expect(() => loadDispatcherConfig({ ...kafka, KAFKA_MAX_WAIT_MS: '0' })).toThrow(
      /KAFKA_MAX_WAIT_MS/,
    );
  });
});

describe('retry policy', () => {
  const policy = (random: number) =>
    new RetryPolicy({
      schedule: parseSchedule('0,5s,5m'),
      jitter: 0.2,
      retryAfterMaxMs: 60_000,
      random: () => random,
    });

  it('varies each delay by at most ±20 %', () => {
    expect(policy(0).nextDelay(1)).toBe(4_000);
    expect(policy(1).nextDelay(1)).toBe(6_000);
    expect(policy(0.5).nextDelay(2)).toBe(300_000);
  });

  it('has no delay after the last attempt', () => {
    expect(policy(0.5).attempts).toBe(3);
    expect(policy(0.5).nextDelay(3)).toBeUndefined();
  });

  it('lets a Retry-After shorter than the step change nothing: the schedule is the minimum', () => {
    expect(policy(0.5).nextDelay(1, 1_000)).toBe(5_000);
    expect(policy(0.5).nextDelay(2, 0)).toBe(300_000);
    // Jitter still applies to the schedule's delay, and a shorter Retry-After does not undercut it.
    expect(policy(0).nextDelay(1, 3_999)).toBe(4_000);
    expect(policy(0.5).nextDelay(3, 1_000)).toBeUndefined();
  });

  it('lets a Retry-After longer than the step lengthen it, clamped to the maximum', () => {
    expect(policy(0.5).nextDelay(1, 20_000)).toBe(20_000);
    expect(policy(0.5).nextDelay(1, 3_600_000)).toBe(60_000);
    // The clamp does not cut below the schedule either: 5 min is past the 60 s maximum.
    expect(policy(0.5).nextDelay(2, 3_600_000)).toBe(300_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120')).toBe(120_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
