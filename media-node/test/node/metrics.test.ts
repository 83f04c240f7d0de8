import { freePort } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mobile, startStack, type Stack } from './harness.js';

let stack: Stack;
let port: number;

beforeAll(async () => {
  port = await freePort();
  stack = await startStack({ nodeEnv: { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' } });
});
afterAll(() => stack.close());

describe('metrics and health', () => {
  it('GET /health is ok while FreeSWITCH is connected', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /metrics counts inbound calls by outcome', async () => {
    const uuid = await stack.control.call('0739990000', mobile());
    await until(async () => !(await stack.control.calls()).some((c) => c.uuid === uuid));
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/voicegw_media_inbound_calls_total\{[^}]*outcome="rejected"[^}]*\} 1/);
    expect(text).toContain('voicegw_media_active_sessions');
    expect(text).toMatch(/voicegw_media_esl_connected\{[^}]*\} 1\n/);
  });
});

async function until(check: () => Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
