// Outbound outcomes driven by the number book.
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { control, name, useSimulator } from './helpers.js';

const fx = useSimulator();

const dial = (uuid: string, number: string) =>
  `originate {origination_uuid=${uuid},origination_caller_id_number=1000}sofia/gateway/pstn/${number} &park()`;

/** Dials a far end that sends early media, then `behavior` after `ringMs`: +OK comes at the 183. */
async function earlyMediaDial(behavior: string, ringMs: number): Promise<string> {
  const number = `+1555${Math.floor(Math.random() * 1e6)}`;
  await control(fx.sim, 'PUT', `/sim/numbers/${number}`, {
    behavior,
    ring_ms: ringMs,
    early_media: true,
  });
  const uuid = randomUUID();
  expect(await fx.client.bgapi(dial(uuid, number))).toBe(`+OK ${uuid}\n`);
  return uuid;
}

describe('originate outcomes', () => {
  it.each([
    ['busy', 'USER_BUSY'],
    ['reject', 'CALL_REJECTED'],
    ['unavailable', 'SUBSCRIBER_ABSENT'],
    ['fail', 'NORMAL_TEMPORARY_FAILURE'],
  ])('%s → -ERR %s after ringing, with the hangup events of the leg', async (behavior, cause) => {
    const number = `+1555${Math.floor(Math.random() * 1e6)}`;
    const put = await control(fx.sim, 'PUT', `/sim/numbers/${number}`, { behavior, ring_ms: 100 });
    expect(put).toEqual({
      status: 200,
      json: { number, behavior, ring_ms: 100, early_media: false },
    });
    const uuid = randomUUID();
    expect(await fx.client.bgapi(dial(uuid, number))).toBe(`-ERR ${cause}\n`);
    expect(fx.client.sequence(uuid)).toEqual([
      'CHANNEL_OUTGOING',
      'CHANNEL_CREATE',
      'CHANNEL_ORIGINATE',
      'CHANNEL_PROGRESS',
      'CHANNEL_HANGUP',
      'CHANNEL_HANGUP_COMPLETE',
      'CHANNEL_DESTROY',
    ]);
    const done = fx.client.events.find(
      (e) => e['Unique-ID'] === uuid && e['Event-Name'] === 'CHANNEL_HANGUP_COMPLETE',
    );
    expect(done?.variable_hangup_cause).toBe(cause);
  });

  it('answer with early media: the job result and park at the 183, the answer after', async () => {
    const uuid = await earlyMediaDial('answer', 300);
    const answer = await fx.client.waitEvent('CHANNEL_ANSWER', uuid);
    expect(answer['Answer-State']).toBe('answered');
    // As FreeSWITCH 1.10.12 does: BACKGROUND_JOB at the 183, park in early media, answer last.
    const wire = fx.client.events
      .filter(
        (e) =>
          (e['Event-Name'] === 'BACKGROUND_JOB' && e._body?.includes(uuid)) ||
          e['Unique-ID'] === uuid,
      )
      .map(name)
      .filter((n) => !['CHANNEL_STATE', 'API'].includes(n));
    expect(wire).toEqual([
      'CHANNEL_OUTGOING',
      'CHANNEL_CREATE',
      'CHANNEL_ORIGINATE',
      'CHANNEL_PROGRESS',
      'CHANNEL_PROGRESS_MEDIA',
      'BACKGROUND_JOB',
      'CHANNEL_EXECUTE',
      'CHANNEL_PARK',
      'CHANNEL_ANSWER',
    ]);
    const media = await fx.client.waitEvent('CHANNEL_PROGRESS_MEDIA', uuid);
    expect(media['Answer-State']).toBe('early');
    expect(await fx.client.api(`uuid_kill ${uuid}`)).toBe('+OK\n');
    await fx.client.waitEvent('CHANNEL_DESTROY', uuid);
  });

  it('early media then a refusal: +OK at the 183, then the hangup events of the leg', async () => {
    const uuid = await earlyMediaDial('busy', 200);
    const done = await fx.client.waitEvent('CHANNEL_HANGUP_COMPLETE', uuid);
    expect(done.variable_hangup_cause).toBe('USER_BUSY');
  });

  it('no_answer rings until originate_timeout and fails NO_ANSWER', async () => {
    await control(fx.sim, 'PUT', '/sim/numbers/5000', { behavior: 'no_answer', ring_ms: 60_000 });
    const uuid = randomUUID();
    const res = await fx.client.bgapi(
      `originate {origination_uuid=${uuid},originate_timeout=1}sofia/gateway/pstn/5000 &park()`,
    );
    expect(res).toBe('-ERR NO_ANSWER\n');
  });

  it('unlisted numbers ring for a second, then answer', async () => {
    const uuid = randomUUID();
    const started = performance.now();
    expect(await fx.client.bgapi(dial(uuid, '+15550009999'))).toBe(`+OK ${uuid}\n`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('error/<cause> fails at once with no channel events', async () => {
    const uuid = randomUUID();
    expect(await fx.client.api(`originate {origination_uuid=${uuid}}error/user_busy &park()`)).toBe(
      '-ERR USER_BUSY\n',
    );
    expect(fx.client.sequence(uuid)).toEqual([]);
  });
});
