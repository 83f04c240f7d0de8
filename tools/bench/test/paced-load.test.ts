import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PacedLoad } from '../lib/paced-load.js';

const SLOW_MS = 200;

/**
 * A server that is slow (and answers 503) for its first `coldMs` after its first request, and
 * fast with 202 afterwards: a cold start, in exaggerated form.
 */
async function coldServer(coldMs: number): Promise<{ origin: string; server: Server }> {
  let firstAt: number | undefined;
  const server = createServer((_request, response) => {
    firstAt ??= performance.now();
    const cold = performance.now() - firstAt < coldMs;
    const answer = (): void => {
      response.statusCode = cold ? 503 : 202;
      response.end();
    };
    if (cold) setTimeout(answer, SLOW_MS);
    else answer();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, server };
}

describe('PacedLoad', () => {
  let close: () => Promise<void> = async () => undefined;
  afterEach(() => close());

  async function loadOn(coldMs: number): Promise<PacedLoad> {
    const { origin, server } = await coldServer(coldMs);
    const load = new PacedLoad(
      { origin, next: () => ({ method: 'POST', path: '/', headers: {} }), expectedStatus: 202 },
      50,
    );
    close = async () => {
      await load.close();
      await new Promise((resolve) => server.close(resolve));
    };
    return load;
  }

  it('records every request of a run without a lead-in', async () => {
    const load = await loadOn(300);
    const result = await load.run({ rate: 500, durationSec: 1 });
    expect(result.responses).toBe(500);
    // The cold first 300 ms hold up about 150 requests: well above 1 % of the run. (Only the
    // ~100 that reach the server while it is cold are 503s: 50 connections, 200 ms each.)
    expect(result.p99Ms).toBeGreaterThanOrEqual(SLOW_MS);
    expect(result.unexpected).toBeGreaterThanOrEqual(50);
  });

  it('leaves the lead-in out of the latencies, but counts its statuses', async () => {
    const load = await loadOn(300);
    const result = await load.run({ rate: 500, durationSec: 1, leadInSec: 0.6 });
    expect(result.responses).toBe(500);
    expect(result.p99Ms).toBeLessThan(SLOW_MS / 2);
    // The lead-in's 503s are not hidden: a run with failures is not a valid measurement.
    expect(result.unexpected).toBeGreaterThanOrEqual(50);
    expect(result.statuses).toMatch(/^202×\d+, 503×\d+$/);
    // Rate over the measured window only.
    expect(result.requestsPerSec).toBeGreaterThan(400);
    expect(result.requestsPerSec).toBeLessThan(520);
  });
});
