import { describe, expect, it } from 'vitest';
import { answeredCall, type Call } from './calls.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0733330000';

const prompt = (ms = 400) => `${audio.base}/tone${ms}ms.wav`;

const eventOf = (session: string, event: string, commandUid: string, timeoutMs?: number) =>
  stack.events.ofCommand(session, event, commandUid, timeoutMs);

async function collect(call: Call, uid: string, body: Record<string, unknown>): Promise<void> {
  const res = await stack.command(tenant, call.session, 'play_and_get_digits', {
    command_uid: uid,
    prompt_files: [prompt()],
    ...body,
  });
  expect(res.status).toBe(202);
  expect(await eventOf(call.session, 'command.result', uid)).toMatchObject({
    command: 'play_and_get_digits',
    success: true,
  });
}

const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
const audio = useAudio();

describe.concurrent('play_and_get_digits', () => {
  it('collects digits up to the terminator, with a dtmf event per key in real time', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'pin', {});
    await stack.control.dtmf(call.uuid, '123#');
    expect(await eventOf(call.session, 'digits.collected', 'pin')).toMatchObject({
      digits: '123',
      terminator: '#',
      status: 'success',
    });
    const keys = stack.events.session(call.session).filter((e) => e.event === 'dtmf');
    expect(keys.map((e) => e.digit)).toEqual(['1', '2', '3', '#']);
    expect(keys[0]).toMatchObject({ duration_ms: 250 });
    const names = stack.events.session(call.session).map((e) => e.event);
    expect(names.indexOf('command.result', 3)).toBeLessThan(names.indexOf('digits.collected'));
  });

  /** A collection, the keys pressed (each group once the keys before it are in) and its outcome. */
  interface Case {
    readonly name: string;
    readonly uid: string;
    readonly options: Record<string, unknown>;
    readonly presses: string[];
    readonly outcome: { digits: string; terminator: string; status: string };
    readonly timeoutMs?: number;
  }
  const outcome = (digits: string, terminator: string, status: string) => ({
    digits,
    terminator,
    status,
  });
  const CASES: Case[] = [
    {
      name: 'stops at max_digits without a terminator',
      uid: 'two',
      options: { max_digits: 2 },
      presses: ['45'],
      outcome: outcome('45', '', 'success'),
    },
    {
      name: 'accepts * as the terminator when asked to',
      uid: 'star',
      options: { terminators: '*' },
      presses: ['9*'],
      outcome: outcome('9', '*', 'success'),
    },
    {
      name: 'no input within the timeout is status timeout',
      uid: 'quiet',
      options: { max_tries: 1, timeout: 1000 },
      presses: [],
      outcome: outcome('', '', 'timeout'),
    },
    {
      name: 'too few digits on the only try is status invalid, with the partial digits',
      uid: 'short',
      options: { min_digits: 3, max_tries: 1 },
      presses: ['12#'],
      outcome: outcome('12', '', 'invalid'),
    },
    {
      name: 'a key that is not a terminator does not end the entry: too short at the timeout is invalid',
      uid: 'badterm',
      options: { min_digits: 3, max_digits: 3, max_tries: 1, timeout: 1000 },
      presses: ['1*'],
      outcome: outcome('1*', '', 'invalid'),
    },
    {
      name: 'enough digits and then silence is success once the digit timeout passes',
      uid: 'nohash',
      options: { min_digits: 2, max_digits: 6, max_tries: 1, timeout: 1000 },
      presses: ['42'],
      outcome: outcome('42', '', 'success'),
    },
    {
      name: 'an invalid try is followed by another, whose valid entry succeeds',
      uid: 'retry',
      options: { min_digits: 3, max_tries: 2, timeout: 3000 },
      presses: ['12#', '345#'],
      outcome: outcome('345', '#', 'success'),
    },
    {
      name: 'invalid entries on every try are status max_tries',
      uid: 'tries',
      options: { min_digits: 3, max_tries: 2, timeout: 3000 },
      presses: ['1#', '2#'],
      outcome: outcome('2', '', 'max_tries'),
    },
    {
      name: 'tries used up after an invalid entry and then silence are status max_tries',
      uid: 'gaveup',
      options: { min_digits: 3, max_tries: 2, timeout: 1000 },
      presses: ['9#'],
      outcome: outcome('', '', 'max_tries'),
      timeoutMs: 8000,
    },
  ];

  for (const { name, uid, options, presses, outcome, timeoutMs } of CASES)
    it(name, async () => {
      const call = await answeredCall(stack, tenant, did);
      await collect(call, uid, options);
      let pressed = 0;
      for (const keys of presses) {
        if (pressed > 0) await waitForDigit(call.session, pressed);
        await stack.control.dtmf(call.uuid, keys);
        pressed += keys.length;
      }
      expect(await eventOf(call.session, 'digits.collected', uid, timeoutMs)).toMatchObject(
        outcome,
      );
    });

  it('a prompt that cannot be fetched gives playback.file_not_found and success false', async () => {
    const call = await answeredCall(stack, tenant, did);
    const bad = `${audio.base}/nope.wav`;
    await stack.command(tenant, call.session, 'play_and_get_digits', {
      command_uid: 'gone',
      prompt_files: [prompt()],
      invalid_files: [bad],
    });
    expect(await eventOf(call.session, 'playback.file_not_found', 'gone')).toMatchObject({
      urls: [bad],
    });
    expect(await eventOf(call.session, 'command.result', 'gone')).toMatchObject({
      success: false,
    });
  });

  it('keys pressed while nothing collects are dtmf events too', async () => {
    const call = await answeredCall(stack, tenant, did);
    await stack.control.dtmf(call.uuid, '7');
    expect(await stack.events.of(call.session, 'dtmf')).toMatchObject({ digit: '7' });
  });
});

async function waitForDigit(session: string, count: number): Promise<void> {
  await stack.events.waitFor(
    () => stack.events.session(session).filter((e) => e.event === 'dtmf').length >= count,
  );
}
