import { describe, expect, it } from 'vitest';
import { BusVariantError, busVariants, parseBusVariant } from '../lib/bus-variants.js';
import { parseOptions } from '../lib/options.js';

const BROKERS = { KAFKA_BROKERS: 'k1:9092,k2:9092' };

describe('--bus', () => {
  it('reads a bus and its settings as the dispatcher environment, Kafka with its brokers', () => {
    expect(parseBusVariant('kafka:KAFKA_MAX_WAIT_MS=10,KAFKA_PARTITIONS=4', BROKERS)).toEqual({
      label: 'kafka:KAFKA_MAX_WAIT_MS=10,KAFKA_PARTITIONS=4',
      bus: 'kafka',
      env: {
        EVENT_BUS: 'kafka',
        KAFKA_MAX_WAIT_MS: '10',
        KAFKA_PARTITIONS: '4',
        KAFKA_BROKERS: 'k1:9092,k2:9092',
      },
    });
    expect(parseBusVariant('kafka:KAFKA_BROKERS=k3:9092', BROKERS).env.KAFKA_BROKERS).toBe(
      'k3:9092',
    );
    expect(parseBusVariant('redis', {}).env).toEqual({ EVENT_BUS: 'redis' });
  });

  it('refuses another bus, a malformed setting and Kafka without brokers', () => {
    expect(() => parseBusVariant('nats', BROKERS)).toThrow(BusVariantError);
    expect(() => parseBusVariant('kafka:max_wait=10', BROKERS)).toThrow(/NAME=value/);
    expect(() => parseBusVariant('kafka:KAFKA_MAX_WAIT_MS=', BROKERS)).toThrow(/NAME=value/);
    expect(() => parseBusVariant('kafka', {})).toThrow(/KAFKA_BROKERS/);
  });

  it('puts the Redis bus first as the reference, once, and measures nothing without --bus', () => {
    const labels = (specs: string[]) => busVariants(specs, BROKERS).map((v) => v.label);
    expect(labels([])).toEqual([]);
    expect(labels(['kafka', 'redis', 'kafka'])).toEqual(['redis', 'kafka']);
    expect(labels(['kafka:KAFKA_MAX_WAIT_MS=10', 'kafka:KAFKA_MAX_WAIT_MS=5'])).toEqual([
      'redis',
      'kafka:KAFKA_MAX_WAIT_MS=10',
      'kafka:KAFKA_MAX_WAIT_MS=5',
    ]);
  });

  it('comes from the flag, which may repeat, or from BENCH_BUS, space-separated', () => {
    const fromFlags = parseOptions(['--bus', 'kafka', '--bus', 'kafka:KAFKA_MAX_WAIT_MS=10'], {
      ...BROKERS,
      BENCH_BUS: 'redis',
    });
    const fromEnv = parseOptions([], {
      ...BROKERS,
      BENCH_BUS: ' kafka  kafka:KAFKA_MAX_WAIT_MS=10 ',
    });
    for (const options of [fromFlags, fromEnv]) {
      expect(options !== 'help' && options.buses.map((v) => v.label)).toEqual([
        'redis',
        'kafka',
        'kafka:KAFKA_MAX_WAIT_MS=10',
      ]);
    }
  });
});
