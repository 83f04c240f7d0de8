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

/** What FreeSWITCH reads back for a variable it never set. */
const UNDEF = '_undef_';

/** What an entry leaves in the four variables pagd() reads back. */
type Left = [pagd: string, pagd_invalid: string, read_result: string, read_terminator_used: string];

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
  it.each<[string, Entry, Left]>([
    [
      'a complete entry: digits without the terminator, read_result success',
      { spec: '1 4 1 3000 #', tries: ['123#'] },
      ['123', UNDEF, 'success', '#'],
    ],
    [
      'too few digits: read_result failure, the partial digits kept, no _invalid',
      { spec: '3 4 1 3000 #', tries: ['1#'] },
      ['1', UNDEF, 'failure', '#'],
    ],
    [
      'a key that is not a terminator is a digit: the entry runs to the digit timeout',
      { spec: '3 3 1 3000 #', tries: ['1*'] },
      ['1*', UNDEF, 'failure', UNDEF],
    ],
    [
      'enough digits then silence: read_result timeout, and the entry counts',
      { spec: '1 4 1 3000 #', tries: ['12'] },
      ['12', UNDEF, 'timeout', UNDEF],
    ],
    [
      'no input: read_result failure and nothing else',
      { spec: '1 4 1 1000 #', tries: [''] },
      [UNDEF, UNDEF, 'failure', UNDEF],
    ],
    [
      'tries exhausted: the last try is what the variables show',
      { spec: '3 4 2 3000 #', tries: ['1#', '25#'] },
      ['25', UNDEF, 'failure', '#'],
    ],
    [
      'only a completed read failing the regexp sets _invalid (and read_result stays success)',
      { spec: '2 4 1 3000 #', regexp: '^1\\d+$', tries: ['55#'] },
      [UNDEF, '55', 'success', '#'],
    ],
  ])('%s', async (_what, entry, [value, invalid, result, terminator]) => {
    expect(await pagd(entry)).toEqual({
      pagd: value,
      pagd_invalid: invalid,
      read_result: result,
      read_terminator_used: terminator,
    });
  });
});
