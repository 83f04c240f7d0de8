import { describe, expect, it } from 'vitest';
import type { Ev } from './harness.js';
import { answeredCall } from './calls.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0734440000';

const tone = (ms: number, tag = '') => `${audio.base}/tone${ms}ms${tag ? `-${tag}` : ''}.wav`;

/** The event of a session with this name and command_uid. */
const eventOf = (session: string, event: string, commandUid: string, timeoutMs = 4000) =>
  stack.events.ofCommand(session, event, commandUid, timeoutMs);

async function play(session: string, uid: string, body: Record<string, unknown>): Promise<void> {
  const res = await stack.commandAfterCooldown(tenant, session, 'playback/start', {
    command_uid: uid,
    ...body,
  });
  expect(res.status).toBe(202);
}

const after = (events: Ev[], a: Ev, b: Ev) => events.indexOf(a) < events.indexOf(b);

// The api's cooldown groups (500 ms between playbacks, 2 s between conference commands...) have
// tests of their own (api/test/session-commands.test.ts): a conference or playback command here
// waits out the window that the session's previous one of its group left, with
// commandAfterCooldown.
const stack = useStack();
const tenant = useTenant(stack, { dids: [did] });
const audio = useAudio();

describe.concurrent('playback', () => {
  it('plays fetched audio: playback.started, command.result, then playback.stopped at its end', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const url = tone(300);
    await play(session, 'p1', { urls: [url] });
    const started = await eventOf(session, 'playback.started', 'p1');
    expect(started).toMatchObject({ urls: [url], file_path: url });
    const result = await eventOf(session, 'command.result', 'p1');
    expect(result).toMatchObject({ command: 'playback.start', success: true });
    const stopped = await eventOf(session, 'playback.stopped', 'p1');
    expect(stopped).toMatchObject({ urls: [url], file_path: url });
    expect(stopped.offset_ms).toBeGreaterThanOrEqual(250);
    expect(stopped.offset_ms).toBeLessThanOrEqual(350);
    expect(stopped.duration_ms).toBeGreaterThanOrEqual(250);
    const events = stack.events.session(session);
    expect(after(events, started, result) && after(events, result, stopped)).toBe(true);
  });

  it('a URL that cannot be fetched gives playback.file_not_found with that URL and success false', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const bad = `${audio.base}/missing.wav`;
    await play(session, 'p404', { urls: [tone(200), bad] });
    expect(await eventOf(session, 'playback.file_not_found', 'p404')).toMatchObject({
      urls: [bad],
      file_path: bad,
    });
    expect(await eventOf(session, 'command.result', 'p404')).toMatchObject({ success: false });
    expect(stack.events.has(session, 'playback.started')).toBe(false);
  });

  it('several URLs play one after another as one playback', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const urls = [tone(200, 'a'), tone(200, 'b')];
    await play(session, 'multi', { urls });
    expect(await eventOf(session, 'playback.started', 'multi')).toMatchObject({
      urls,
      file_path: urls.join(','),
    });
    const stopped = await eventOf(session, 'playback.stopped', 'multi');
    expect(stopped.duration_ms).toBeGreaterThanOrEqual(350);
  });

  it('last wins: a new playback stops the current one, whose playback.stopped keeps its command_uid', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await play(session, 'first', { urls: [tone(5000)] });
    await eventOf(session, 'playback.started', 'first');
    await play(session, 'second', { urls: [tone(300)] });
    const stoppedFirst = await eventOf(session, 'playback.stopped', 'first');
    const startedSecond = await eventOf(session, 'playback.started', 'second');
    expect(stoppedFirst.offset_ms).toBeLessThan(1000);
    expect(after(stack.events.session(session), stoppedFirst, startedSecond)).toBe(true);
    await eventOf(session, 'playback.stopped', 'second');
  });

  it('playback/stop answers at once; playback.stopped carries the playback command_uid', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await play(session, 'long', { urls: [tone(5000)] });
    await eventOf(session, 'playback.started', 'long');
    await stack.commandAfterCooldown(tenant, session, 'playback/stop', { command_uid: 'halt' });
    expect(await eventOf(session, 'command.result', 'halt')).toMatchObject({
      command: 'playback.stop',
      success: true,
    });
    expect((await eventOf(session, 'playback.stopped', 'long')).offset_ms).toBeLessThan(1000);
    expect(stack.events.has(session, 'playback.stopped', 'halt')).toBe(false);
  });

  it('pause holds the playback and resume continues it; a second pause is a no-op', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await play(session, 'pz', { urls: [tone(600)] });
    await eventOf(session, 'playback.started', 'pz');
    const begun = Date.now();
    await stack.commandAfterCooldown(tenant, session, 'playback/pause', { command_uid: 'pause-1' });
    expect(await eventOf(session, 'command.result', 'pause-1')).toMatchObject({ success: true });
    await stack.commandAfterCooldown(tenant, session, 'playback/pause', { command_uid: 'pause-2' });
    expect(await eventOf(session, 'command.result', 'pause-2')).toMatchObject({ success: true });
    await new Promise((resolve) => setTimeout(resolve, 700));
    await stack.commandAfterCooldown(tenant, session, 'playback/resume', {
      command_uid: 'resume-1',
    });
    expect(await eventOf(session, 'command.result', 'resume-1')).toMatchObject({
      command: 'playback.resume',
      success: true,
    });
    const stopped = await eventOf(session, 'playback.stopped', 'pz');
    expect(Date.now() - begun).toBeGreaterThanOrEqual(1200);
    expect(stopped.duration_ms).toBeLessThan(1000);
  });

  it('seek moves the position: a 3 s file skipped 2 s forward ends about 2 s early', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await play(session, 'sk', { urls: [tone(3000)] });
    await eventOf(session, 'playback.started', 'sk');
    const begun = Date.now();
    await stack.commandAfterCooldown(tenant, session, 'playback/seek', {
      command_uid: 'seek-1',
      position_ms: 2000,
    });
    expect(await eventOf(session, 'command.result', 'seek-1')).toMatchObject({ success: true });
    const stopped = await eventOf(session, 'playback.stopped', 'sk');
    expect(Date.now() - begun).toBeLessThan(1800);
    expect(stopped.offset_ms).toBeGreaterThanOrEqual(2900);
  });

  it('restart succeeds while playing; pause without a playback fails', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await stack.commandAfterCooldown(tenant, session, 'playback/pause', { command_uid: 'nothing' });
    expect(await eventOf(session, 'command.result', 'nothing')).toMatchObject({ success: false });
    await play(session, 'rs', { urls: [tone(2000)] });
    await eventOf(session, 'playback.started', 'rs');
    await stack.commandAfterCooldown(tenant, session, 'playback/restart', {
      command_uid: 'restart-1',
    });
    expect(await eventOf(session, 'command.result', 'restart-1')).toMatchObject({
      command: 'playback.restart',
      success: true,
    });
    await stack.command(tenant, session, 'hangup');
    await stack.events.of(session, 'call.hangup');
  });

  it('offset_sec starts the file further in', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const begun = Date.now();
    await play(session, 'off', { urls: [tone(2000)], offset_sec: 1 });
    const stopped = await eventOf(session, 'playback.stopped', 'off');
    expect(Date.now() - begun).toBeLessThan(1700);
    expect(stopped.offset_ms).toBeGreaterThanOrEqual(1900);
  });

  it('a URL is fetched once and then played from the cache', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const url = tone(100, 'cached');
    for (const uid of ['c1', 'c2']) {
      await play(session, uid, { urls: [url] });
      await eventOf(session, 'playback.stopped', uid);
    }
    expect(audio.hits.filter((h) => h === new URL(url).pathname)).toHaveLength(1);
  });

  it('audio not fetched within 2 s fails the command and never plays', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await play(session, 'slow', { urls: [`${audio.base}/slow2300ms.wav`] });
    expect(await eventOf(session, 'command.result', 'slow', 3000)).toMatchObject({
      success: false,
    });
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(stack.events.has(session, 'playback.started')).toBe(false);
  });

  it('silence stops the current playback and runs until hangup, then playback.stopped', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    await play(session, 'before', { urls: [tone(5000)] });
    await eventOf(session, 'playback.started', 'before');
    await stack.commandAfterCooldown(tenant, session, 'playback/silence', { command_uid: 'quiet' });
    await eventOf(session, 'playback.stopped', 'before');
    expect(await eventOf(session, 'command.result', 'quiet')).toMatchObject({
      command: 'playback.silence',
      success: true,
    });
    await stack.command(tenant, session, 'hangup');
    const silenceStopped = await eventOf(session, 'playback.stopped', 'quiet');
    const hangup = await stack.events.of(session, 'call.hangup');
    expect(silenceStopped.urls).toEqual([]);
    expect(after(stack.events.session(session), silenceStopped, hangup)).toBe(true);
  });
});
