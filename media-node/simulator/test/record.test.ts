// uuid_record as FreeSWITCH 1.10.12 does it (trace e): the replies, RECORD_START/RECORD_STOP
// with the trace's headers and record_* variables, and a real WAV file that grows while the
// call records (sizes left at 0 in the header, as libsndfile leaves them) and is finalised
// before RECORD_STOP.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseWav } from '../src/media/wav.js';
import { parkedCall, useSimulator } from './helpers.js';

const sim = useSimulator();
const dir = mkdtempSync(join(tmpdir(), 'sim-record-'));

async function call(): Promise<string> {
  const uuid = randomUUID();
  await parkedCall(sim.client, uuid);
  return uuid;
}

const recordEvent = (name: string, uuid: string, path: string) =>
  sim.client.waitEvent(name, uuid, (e) => e['Record-File-Path'] === path);

/** The data size the header declares (bytes 40..43). */
const declaredData = (path: string) => readFileSync(path).readUInt32LE(40);

describe('uuid_record', () => {
  it('start and stop: replies, events and a WAV that grows, finalised at the stop', async () => {
    const uuid = await call();
    const path = join(dir, 'sess', `${uuid}.wav`);
    expect(await sim.client.api(`uuid_record ${uuid} start ${path}`)).toBe('+OK Success\n');
    await recordEvent('RECORD_START', uuid, path);
    await sim.client.waitEvent('MEDIA_BUG_START', uuid);
    const size = () => statSync(path).size;
    await expect.poll(size).toBeGreaterThan(44 + 1600);
    const growing = size();
    await expect.poll(size).toBeGreaterThan(growing);
    expect(declaredData(path)).toBe(0);

    expect(await sim.client.api(`uuid_record ${uuid} stop ${path}`)).toBe('+OK Success\n');
    const stop = await recordEvent('RECORD_STOP', uuid, path);
    expect(stop['Record-Completion-Cause']).toBe('success-maxtime');
    expect(stop.variable_record_completion_cause).toBe('success-maxtime');
    const samples = Number(stop.variable_record_samples);
    expect(Number(stop.variable_record_ms)).toBe(Math.floor(samples / 8));
    expect(Number(stop.variable_record_seconds)).toBe(Math.floor(samples / 8000));
    expect(Number(stop.variable_record_file_size)).toBe(44 + samples * 2);
    // Closed before RECORD_STOP: the file is whole, its header exact.
    expect(size()).toBe(44 + samples * 2);
    expect(declaredData(path)).toBe(samples * 2);
    expect(parseWav(readFileSync(path))).toMatchObject({ sampleRate: 8000, channels: 1 });
    await sim.client.waitEvent('MEDIA_BUG_STOP', uuid);
    await sim.client.api(`uuid_kill ${uuid}`);
  });

  it('refusals: unknown format, uncreatable directory, stop of what is not recorded', async () => {
    const uuid = await call();
    writeFileSync(join(dir, 'plainfile'), '');
    expect(await sim.client.api(`uuid_record ${uuid} start ${join(dir, 'x.mp3x')}`)).toBe(
      '-ERR Cannot record session!\n',
    );
    expect(
      await sim.client.api(`uuid_record ${uuid} start ${join(dir, 'plainfile', 'x.wav')}`),
    ).toBe('-ERR Cannot record session!\n');
    expect(await sim.client.api(`uuid_record ${uuid} stop ${join(dir, 'nothing.wav')}`)).toBe(
      '-ERR Cannot stop record session!\n',
    );
    await sim.client.api(`uuid_kill ${uuid}`);
  });

  it('stop all ends every recording of the channel', async () => {
    const uuid = await call();
    const a = join(dir, `a-${uuid}.wav`);
    const b = join(dir, `b-${uuid}.wav`);
    await sim.client.api(`uuid_record ${uuid} start ${a}`);
    await sim.client.api(`uuid_record ${uuid} start ${b}`);
    expect(await sim.client.api(`uuid_record ${uuid} stop all`)).toBe('+OK Success\n');
    await recordEvent('RECORD_STOP', uuid, a);
    await recordEvent('RECORD_STOP', uuid, b);
    expect(parseWav(readFileSync(a))).toBeDefined();
    expect(parseWav(readFileSync(b))).toBeDefined();
    await sim.client.api(`uuid_kill ${uuid}`);
  });

  it('hangup while recording: RECORD_STOP success-silence before CHANNEL_HANGUP_COMPLETE', async () => {
    const uuid = await call();
    const path = join(dir, `h-${uuid}.wav`);
    await sim.client.api(`uuid_record ${uuid} start ${path}`);
    await recordEvent('RECORD_START', uuid, path);
    await sim.client.api(`uuid_kill ${uuid}`);
    const stop = await recordEvent('RECORD_STOP', uuid, path);
    expect(stop['Record-Completion-Cause']).toBe('success-silence');
    expect(stop['Answer-State']).toBe('hangup');
    await sim.client.waitEvent('CHANNEL_HANGUP_COMPLETE', uuid);
    const order = sim.client.sequence(uuid).filter((n) => /RECORD_STOP|HANGUP_COMPLETE/.test(n));
    expect(order).toEqual(['RECORD_STOP', 'CHANNEL_HANGUP_COMPLETE']);
    expect(declaredData(path)).toBe(Number(stop.variable_record_samples) * 2);
  });
});
