import { describe, expect, it } from 'vitest';
import { answeredCall, type Call } from './calls.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0733330000';

const prompt = (ms = 400) => `${audio.base}/tone${ms}ms.wav`;

const eventOf = (session: string, event: string, commandUid: string, timeoutMs = 5000) =>
  stack.events.waitFor(
    (e) => e.session_uuid === session && e.event === event && e.command_uid === commandUid,
    timeoutMs,
    `${event} of ${commandUid}`,
  );

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

  it('stops at max_digits without a terminator', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'two', { max_digits: 2 });
    await stack.control.dtmf(call.uuid, '45');
    expect(await eventOf(call.session, 'digits.collected', 'two')).toMatchObject({
      digits: '45',
      terminator: '',
      status: 'success',
    });
  });

  it('accepts * as the terminator when asked to', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'star', { terminators: '*' });
    await stack.control.dtmf(call.uuid, '9*');
    expect(await eventOf(call.session, 'digits.collected', 'star')).toMatchObject({
      digits: '9',
      terminator: '*',
      status: 'success',
    });
  });

  it('no input within the timeout is status timeout', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'quiet', { max_tries: 1, timeout: 1000 });
    expect(await eventOf(call.session, 'digits.collected', 'quiet')).toMatchObject({
      digits: '',
      terminator: '',
      status: 'timeout',
    });
  });

  it('too few digits on the only try is status invalid, with the partial digits', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'short', { min_digits: 3, max_tries: 1 });
    await stack.control.dtmf(call.uuid, '12#');
    expect(await eventOf(call.session, 'digits.collected', 'short')).toMatchObject({
      digits: '12',
      terminator: '',
      status: 'invalid',
    });
  });

  it('a key that is not a terminator does not end the entry: too short at the timeout is invalid', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'badterm', { min_digits: 3, max_digits: 3, max_tries: 1, timeout: 1000 });
    await stack.control.dtmf(call.uuid, '1*');
    expect(await eventOf(call.session, 'digits.collected', 'badterm')).toMatchObject({
      digits: '1*',
      terminator: '',
      status: 'invalid',
    });
  });

  it('enough digits and then silence is success once the digit timeout passes', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'nohash', { min_digits: 2, max_digits: 6, max_tries: 1, timeout: 1000 });
    await stack.control.dtmf(call.uuid, '42');
    expect(await eventOf(call.session, 'digits.collected', 'nohash')).toMatchObject({
      digits: '42',
      terminator: '',
      status: 'success',
    });
  });

  it('an invalid try is followed by another, whose valid entry succeeds', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'retry', { min_digits: 3, max_tries: 2, timeout: 3000 });
    await stack.control.dtmf(call.uuid, '12#');
    await waitForDigit(call.session, 3);
    await stack.control.dtmf(call.uuid, '345#');
    expect(await eventOf(call.session, 'digits.collected', 'retry')).toMatchObject({
      digits: '345',
      terminator: '#',
      status: 'success',
    });
  });

  it('invalid entries on every try are status max_tries', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'tries', { min_digits: 3, max_tries: 2, timeout: 3000 });
    await stack.control.dtmf(call.uuid, '1#');
    await waitForDigit(call.session, 2);
    await stack.control.dtmf(call.uuid, '2#');
    expect(await eventOf(call.session, 'digits.collected', 'tries')).toMatchObject({
      digits: '2',
      terminator: '',
      status: 'max_tries',
    });
  });

  it('tries used up after an invalid entry and then silence are status max_tries', async () => {
    const call = await answeredCall(stack, tenant, did);
    await collect(call, 'gaveup', { min_digits: 3, max_tries: 2, timeout: 1000 });
    await stack.control.dtmf(call.uuid, '9#');
    expect(await eventOf(call.session, 'digits.collected', 'gaveup', 8000)).toMatchObject({
      digits: '',
      terminator: '',
      status: 'max_tries',
    });
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
