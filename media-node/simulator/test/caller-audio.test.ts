// The caller's voice through the control API: POST /say queues a WAV or a tone as what the caller
// says, at real-time pace after what it is already saying; GET /audio tells when each began;
// a recording of the call holds it; heard.wav is what the call heard.
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { control, parkedInboundCall, useSimulator } from './helpers.js';
import { levelAt, onset, wavSamples } from './stream-peer.js';

const fx = useSimulator();

async function answeredCall(): Promise<string> {
  const uuid = await parkedInboundCall(fx);
  await fx.client.api(`uuid_answer ${uuid}`);
  return uuid;
}

const say = (uuid: string, body: unknown) =>
  control(fx.sim, 'POST', `/sim/calls/${uuid}/say`, body);

describe('POST /sim/calls/{uuid}/say', () => {
  it('refuses a body that is not exactly one of url and tone, and unknown calls', async () => {
    const uuid = await answeredCall();
    for (const body of [
      {},
      { url: `${fx.media.base}/tone1s.wav`, tone: { hz: 1000, ms: 100 } },
      { tone: { hz: 0, ms: 100 } },
      { tone: { hz: 1000, ms: 0 } },
      { tone: { hz: 1000 } },
      { url: 'ftp://example.com/a.wav' },
    ]) {
      const res = await say(uuid, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toBe('invalid_request');
    }
    const missing = await say(uuid, { url: `${fx.media.base}/missing.wav` });
    expect(missing).toEqual({
      status: 400,
      json: { error: 'invalid_request', message: `Could not fetch ${fx.media.base}/missing.wav` },
    });
    const unknown = await say(randomUUID(), { tone: { hz: 1000, ms: 100 } });
    expect(unknown).toEqual({
      status: 404,
      json: { error: 'call_not_found', message: 'No such call' },
    });
    for (const path of ['heard.wav', 'audio']) {
      const res = await control(fx.sim, 'GET', `/sim/calls/${randomUUID()}/${path}`);
      expect(res.status).toBe(404);
    }
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('queues each say after the previous one and reports when each began', async () => {
    const uuid = await answeredCall();
    const first = await say(uuid, { url: `${fx.media.base}/tone1s.wav` });
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({ uuid, ms: 1000, url: `${fx.media.base}/tone1s.wav` });
    // A 16 kHz WAV is resampled to the call's 8 kHz: its length stays.
    const second = await say(uuid, { url: `${fx.media.base}/tone500ms.wav?rate=16000&hz=1000` });
    expect(second.json.ms).toBe(500);
    expect(second.json.at_ms).toBe((first.json.at_ms as number) + 1000);
    const { json } = await control(fx.sim, 'GET', `/sim/calls/${uuid}/audio`);
    expect(json).toMatchObject({
      uuid,
      ended: false,
      stream: null,
      said: [
        { at_ms: first.json.at_ms, ms: 1000, url: `${fx.media.base}/tone1s.wav` },
        { at_ms: second.json.at_ms, ms: 500 },
      ],
    });
    expect(json.elapsed_ms).toBeGreaterThanOrEqual(first.json.at_ms as number);
    expect(Date.parse(json.began_at as string)).toBeLessThanOrEqual(Date.now());
    await fx.client.api(`uuid_kill ${uuid}`);
  });
});

describe('what listens to the caller', () => {
  it('a recording holds what the caller says, at the time it says it, and silence otherwise', async () => {
    const uuid = await answeredCall();
    const dir = await mkdtemp(join(tmpdir(), 'sim-say-'));
    const path = join(dir, 'call.wav');
    expect(await fx.client.api(`uuid_record ${uuid} start ${path}`)).toBe('+OK Success\n');
    await fx.client.waitEvent('RECORD_START', uuid);
    const said = await say(uuid, { url: `${fx.media.base}/tone300ms.wav?rate=16000&hz=1000` });
    await new Promise((r) => setTimeout(r, 600));
    await fx.client.api(`uuid_record ${uuid} stop ${path}`);
    await fx.client.waitEvent('RECORD_STOP', uuid);
    const samples = wavSamples(await readFile(path));
    const start = onset(samples);
    expect(start).toBeGreaterThan(0);
    expect(samples.subarray(0, start).every((s) => Math.abs(s) < 2000)).toBe(true);
    const loud = samples.subarray(start, start + 2000);
    expect(levelAt(loud, 1000, 8000)).toBeGreaterThan(6000);
    const last = samples.findLastIndex((s) => Math.abs(s) > 2000);
    expect((last - start) / 8).toBeGreaterThan(290);
    expect((last - start) / 8).toBeLessThan(310);
    expect(said.status).toBe(202);
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('heard.wav is silence where nothing was written to the call', async () => {
    const uuid = await answeredCall();
    await say(uuid, { tone: { hz: 1000, ms: 200 } });
    await new Promise((r) => setTimeout(r, 300));
    const res = await fetch(`${fx.sim.controlUrl}/sim/calls/${uuid}/heard.wav`);
    const samples = wavSamples(Buffer.from(await res.arrayBuffer()));
    expect(samples.length / 8).toBeGreaterThan(250);
    expect(samples.every((s) => s === 0)).toBe(true);
    await fx.client.api(`uuid_kill ${uuid}`);
  });
});
