// play_and_get_digits as FreeSWITCH 1.10.12 reports it (switch_play_and_get_digits): what the
// variables hold after each kind of entry, read back with uuid_getvar as trace d does.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parkedCall, useSimulator } from './helpers.js';

const sim = useSimulator();

interface Entry {
  /** `<min> <max> <tries> <timeout> <terminators>` */
  readonly spec: string;
  readonly regexp?: string;
  /** Keys pressed per try, each after the previous try's invalid-input file started. */
  readonly tries: readonly string[];
}

/** Runs play_and_get_digits on a fresh call and returns the variables FreeSWITCH leaves. */
async function pagd(entry: Entry): Promise<Record<string, string>> {
  const uuid = randomUUID();
  await parkedCall(sim.client, uuid);
  const app = randomUUID();
  const invalid = `${sim.media.base}/tone300ms.wav`;
  const arg = `${entry.spec} ${sim.media.base}/tone200ms.wav ${invalid} pagd ${entry.regexp ?? '\\d*'} 600`;
  expect(await sim.client.execute(uuid, 'play_and_get_digits', arg, app)).toBe('+OK');
  await sim.client.waitEvent('CHANNEL_EXECUTE', uuid, (e) => e['Application-UUID'] === app);
  for (const [i, keys] of entry.tries.entries()) {
    if (i > 0) await playing(uuid, invalid, i);
    if (keys) expect(await sim.client.api(`uuid_recv_dtmf ${uuid} ${keys}`)).toMatch(/^\+OK/);
  }
  await sim.client.waitEvent(
    'CHANNEL_EXECUTE_COMPLETE',
    uuid,
    (e) => e['Application-UUID'] === app,
  );
  const vars: Record<string, string> = {};
  for (const name of ['pagd', 'pagd_invalid', 'read_result', 'read_terminator_used'])
    vars[name] = await sim.client.api(`uuid_getvar ${uuid} ${name}`);
  await sim.client.api(`uuid_kill ${uuid}`);
  return vars;
}

/** Waits until the invalid-input file has started `count` times on the channel. */
async function playing(uuid: string, file: string, count: number): Promise<void> {
  const starts = () =>
    sim.client.events.filter(
      (e) =>
        e['Unique-ID'] === uuid &&
        e['Event-Name'] === 'PLAYBACK_START' &&
        e['Playback-File-Path'] === file,
    ).length;
  await expect.poll(starts, { timeout: 8000 }).toBeGreaterThanOrEqual(count);
}

describe('play_and_get_digits variables', () => {
  it('a complete entry: digits without the terminator, read_result success', async () => {
    expect(await pagd({ spec: '1 4 1 3000 #', tries: ['123#'] })).toEqual({
      pagd: '123',
      pagd_invalid: '_undef_',
      read_result: 'success',
      read_terminator_used: '#',
    });
  });

  it('too few digits: read_result failure, the partial digits kept, no _invalid', async () => {
    expect(await pagd({ spec: '3 4 1 3000 #', tries: ['1#'] })).toEqual({
      pagd: '1',
      pagd_invalid: '_undef_',
      read_result: 'failure',
      read_terminator_used: '#',
    });
  });

  it('a key that is not a terminator is a digit: the entry runs to the digit timeout', async () => {
    expect(await pagd({ spec: '3 3 1 3000 #', tries: ['1*'] })).toEqual({
      pagd: '1*',
      pagd_invalid: '_undef_',
      read_result: 'failure',
      read_terminator_used: '_undef_',
    });
  });

  it('enough digits then silence: read_result timeout, and the entry counts', async () => {
    expect(await pagd({ spec: '1 4 1 3000 #', tries: ['12'] })).toEqual({
      pagd: '12',
      pagd_invalid: '_undef_',
      read_result: 'timeout',
      read_terminator_used: '_undef_',
    });
  });

  it('no input: read_result failure and nothing else', async () => {
    expect(await pagd({ spec: '1 4 1 1000 #', tries: [''] })).toEqual({
      pagd: '_undef_',
      pagd_invalid: '_undef_',
      read_result: 'failure',
      read_terminator_used: '_undef_',
    });
  });

  it('tries exhausted: the last try is what the variables show', async () => {
    expect(await pagd({ spec: '3 4 2 3000 #', tries: ['1#', '25#'] })).toEqual({
      pagd: '25',
      pagd_invalid: '_undef_',
      read_result: 'failure',
      read_terminator_used: '#',
    });
  });

  it('only a completed read failing the regexp sets _invalid (and read_result stays success)', async () => {
    expect(await pagd({ spec: '2 4 1 3000 #', regexp: '^1\\d+$', tries: ['55#'] })).toEqual({
      pagd: '_undef_',
      pagd_invalid: '55',
      read_result: 'success',
      read_terminator_used: '#',
    });
  });
});
