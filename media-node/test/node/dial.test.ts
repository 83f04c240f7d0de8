import { describe, expect, it } from 'vitest';
import { mobile } from './harness.js';
import { useStack, useTenant } from './use-stack.js';

const from = '0721234567';

async function dial(to: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await stack.dial(tenant, { to, from, ...extra });
  expect(res.status).toBe(202);
  return res.body.session_uuid as string;
}

const names = (session: string) => stack.events.session(session).map((e) => e.event);

async function dialStatus(session: string): Promise<unknown> {
  const res = await stack.api.inject({
    method: 'GET',
    url: `/api/v1/dial/${session}`,
    headers: tenant.headers,
  });
  return res.json<{ status: string }>().status;
}

const stack = useStack();
const tenant = useTenant(stack, { cids: [from] });

describe.concurrent('dial', () => {
  it('an answered dial reports dialing, ringing, answered; the callee hanging up ends it completed', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 150);
    const session = await dial(to, { metadata: { order: 42 } });
    expect(await stack.events.of(session, 'session.dialing')).toMatchObject({ to, from });
    expect(await stack.events.of(session, 'session.ringing')).toMatchObject({ to, from });
    const answered = await stack.events.of(session, 'call.answered');
    expect(answered.command_uid).toBeUndefined();
    expect(await dialStatus(session)).toBe('answered');

    await stack.control.hangup(session.slice(6));
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: 'completed',
    });
    expect(names(session)).toEqual([
      'session.dialing',
      'session.ringing',
      'call.answered',
      'call.hangup',
    ]);
    expect(await dialStatus(session)).toBe('ended');
  });

  it('dial metadata is echoed on every event of the session, commands included', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 50);
    const metadata = { order: 7, customer: 'c-1' };
    const session = await dial(to, { metadata });
    await stack.events.of(session, 'call.answered');
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
    const events = stack.events.session(session);
    expect(events.map((e) => e.event)).toContain('command.result');
    for (const event of events) expect(event.metadata).toEqual(metadata);
  });

  it('early media is reported as session.early_media, not as an answer (the job result came at the 183)', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 600, true);
    const session = await dial(to);
    await stack.events.of(session, 'session.early_media');
    expect(await dialStatus(session)).toBe('early_media');
    await stack.events.of(session, 'call.answered');
    expect(await dialStatus(session)).toBe('answered');
    expect(names(session)).toEqual([
      'session.dialing',
      'session.ringing',
      'session.early_media',
      'call.answered',
    ]);
  });

  it('timeout_sec ends a dial ringing in early media with no_answer', async () => {
    // FreeSWITCH's originate has returned at the 183, so its originate_timeout is over.
    const to = mobile();
    await stack.control.number(to, 'answer', 10_000, true);
    const session = await dial(to, { timeout_sec: 1 });
    await stack.events.of(session, 'session.early_media');
    expect(await stack.events.of(session, 'call.hangup', 4000)).toMatchObject({
      hangup_cause: 'no_answer',
      duration_seconds: 0,
    });
  });

  it.each([
    ['busy', 'busy'],
    ['reject', 'rejected'],
    ['no_answer', 'no_answer'],
    ['unavailable', 'unavailable'],
    ['fail', 'failed'],
  ] as const)('a callee that is %s ends the dial with hangup_cause %s', async (behavior, cause) => {
    const to = mobile();
    await stack.control.number(to, behavior, 100);
    const session = await dial(to);
    expect(await stack.events.of(session, 'call.hangup')).toMatchObject({
      hangup_cause: cause,
      duration_seconds: 0,
    });
    expect(names(session)).toEqual(['session.dialing', 'session.ringing', 'call.hangup']);
    expect(await dialStatus(session)).toBe('ended');
  });

  it('timeout_sec ends a ringing dial with no_answer', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 10_000);
    const session = await dial(to, { timeout_sec: 1 });
    await stack.events.of(session, 'session.ringing');
    const started = Date.now();
    expect(await stack.events.of(session, 'call.hangup', 3000)).toMatchObject({
      hangup_cause: 'no_answer',
    });
    expect(Date.now() - started).toBeGreaterThan(500);
  });

  it('max_duration_sec hangs up an answered call, which completed with its duration', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 20);
    const session = await dial(to, { max_duration_sec: 1 });
    await stack.events.of(session, 'call.answered');
    expect(await stack.events.of(session, 'call.hangup', 3000)).toMatchObject({
      hangup_cause: 'completed',
      duration_seconds: 1,
    });
  });

  it('the dialed session takes commands: answer on an answered call confirms at once', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 20);
    const session = await dial(to);
    await stack.events.of(session, 'call.answered');
    await stack.command(tenant, session, 'answer', { command_uid: 'again' });
    expect(
      await stack.events.waitFor((e) => e.session_uuid === session && e.command_uid === 'again'),
    ).toMatchObject({ event: 'call.answered', success: true });
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
  });
});
