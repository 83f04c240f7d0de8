import { freePort } from '@voicegw/tools';
import { beforeAll, describe, expect, it } from 'vitest';
import { mobile } from './harness.js';
import { useStack } from './use-stack.js';

let port: number;

beforeAll(async () => {
  port = await freePort();
});
const stack = useStack(() => ({
  nodeEnv: { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' },
}));

describe('metrics and health', () => {
  it('GET /health is ok while FreeSWITCH is connected', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /metrics counts inbound calls by outcome', async () => {
    const uuid = await stack.control.call('0739990000', mobile());
    await expect
      .poll(async () => (await stack.control.calls()).some((c) => c.uuid === uuid))
      .toBe(false);
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(text).toMatch(/voicegw_media_inbound_calls_total\{[^}]*outcome="rejected"[^}]*\} 1/);
    expect(text).toContain('voicegw_media_active_sessions');
    expect(text).toMatch(/voicegw_media_esl_connected\{[^}]*\} 1\n/);
  });
});
