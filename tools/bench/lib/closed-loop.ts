import autocannon from 'autocannon';
import { LatencySamples, loadResult, StatusCounts, type LoadResult } from './stats.js';
import type { LoadTarget } from './target.js';

export interface ClosedLoopOptions {
  readonly connections: number;
  readonly durationSec: number;
}

/**
 * Maximum throughput: autocannon keeps `connections` requests in flight (one per connection,
 * no pipelining) for the whole duration. Latencies are taken from autocannon's per-response
 * event so that percentiles are exact rather than whole-millisecond histogram buckets.
 */
export async function closedLoop(
  target: LoadTarget,
  options: ClosedLoopOptions,
): Promise<LoadResult> {
  const latencies = new LatencySamples();
  const statuses = new StatusCounts();
  const seconds = await new Promise<number>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.origin,
        connections: options.connections,
        duration: options.durationSec,
        pipelining: 1,
        requests: [{ setupRequest: (request) => ({ ...request, ...target.next() }) }],
      },
      (err: unknown, result) => (err ? reject(toError(err)) : resolve(result.duration)),
    );
    instance.on('response', (_client, status, _bytes, responseTime) => {
      statuses.add(status);
      latencies.add(responseTime);
    });
    instance.on('reqError', () => statuses.add(0));
  });
  return loadResult(latencies, statuses, seconds, target.expectedStatus);
}

const toError = (err: unknown): Error => (err instanceof Error ? err : new Error(String(err)));
