// Media streams end to end: the api takes stream/start and stream/stop, the node opens the
// application's WebSocket (a real `ws` server here, which checks the signed upgrade), has the
// simulator's mod_audio_stream stream the call to the node, and relays it both ways in the
// Twilio/Telnyx frames; the events come from the Redis event stream.
import { randomUUID } from 'node:crypto';
import { freePort } from '@voicegw/tools';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answeredCall } from './calls.js';
import type { Ev } from './harness.js';
import { startStream, StreamApp, type AppConnection, type Frame } from './stream-app.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0736660000';
const stack = useStack({ nodeEnv: { ALLOW_LOCALHOST_WEBHOOKS: 'true' } });
const tenant = useTenant(stack, { dids: [did] });
let app: StreamApp;
beforeAll(async () => {
  app = await StreamApp.start();
});
afterAll(() => app.close());

/** A stream running on `session`: started, and its command.result out. */
async function running(
  session: string,
  body: Record<string, unknown> = {},
): Promise<{ streamId: string; uid: string; conn: AppConnection }> {
  const { streamId, uid } = await startStream(stack, tenant, session, { url: app.url(), ...body });
  const conn = await app.connection(streamId);
  expect(await stack.events.ofCommand(session, 'command.result', uid)).toMatchObject({
    success: true,
  });
  return { streamId, uid, conn };
}

const media = (conn: AppConnection, track = 'inbound'): Frame[] =>
  conn.of('media').filter((f) => (f.media as { track: string }).track === track);

/** The value of a counter of the node for one label value. */
async function counted(
  metric: 'mediaStreamMalformedFrames' | 'mediaStreamDroppedFrames',
  reason: string,
): Promise<number> {
  const { values } = await stack.node.metrics[metric].get();
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

const hex = (uuid: string) => uuid.replace(/-/g, '');
const ofStream = (session: string, streamId: string) =>
  stack.events.session(session).filter((e) => e.stream_id === streamId);

describe.concurrent('media streams', () => {
  it('stream/start: the app gets connected, then start in both dialects; stream.started, then command.result', async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { streamId, uid } = await startStream(stack, tenant, session, {
      url: app.url('/agent?lang=en'),
      custom_parameters: { lang: 'en', 'user.id': '42' },
    });
    const conn = await app.connection(streamId);
    expect(conn.path).toBe('/agent?lang=en');
    const start = await conn.next('start');
    expect(conn.frames[0]).toEqual({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    const streamSid = `MZ${hex(streamId)}`;
    const custom = { lang: 'en', 'user.id': '42' };
    expect(start).toEqual({
      event: 'start',
      sequenceNumber: '1',
      sequence_number: '1',
      streamSid,
      stream_id: streamId,
      start: {
        streamSid,
        accountSid: expect.stringMatching(/^AC[0-9a-f]{32}$/) as unknown,
        callSid: `CA${hex(uuid)}`,
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: custom,
        call_control_id: session,
        call_session_id: session,
        user_id: tenant.appId,
        from: expect.any(String) as unknown,
        to: did,
        media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
        custom_parameters: custom,
        session_uuid: session,
        app_id: tenant.appId,
        bidirectional: false,
      },
    });
    const started = await stack.events.ofCommand(session, 'stream.started', uid);
    expect(started).toMatchObject({
      stream_id: streamId,
      url: app.url('/agent?lang=en'),
      track: 'inbound',
      bidirectional: false,
    });
    const result = await stack.events.ofCommand(session, 'command.result', uid);
    expect(result).toMatchObject({ command: 'stream.start', success: true });
    const events = stack.events.session(session);
    expect(events.indexOf(started)).toBeLessThan(events.indexOf(result));
  });

  it('media frames come every 20 ms: track inbound, chunk from 1, timestamp 20 ms apart, 160 bytes of μ-law', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { conn } = await running(session);
    await conn.until(() => media(conn).length >= 26, 5000, '26 media frames');
    const frames = media(conn).slice(0, 26);
    frames.forEach((frame, i) => {
      const body = frame.media as Record<string, string>;
      expect(body).toMatchObject({
        track: 'inbound',
        chunk: String(i + 1),
        timestamp: String(i * 20),
      });
      expect(Buffer.from(body.payload ?? '', 'base64')).toHaveLength(160);
      expect(frame.sequenceNumber).toBe(String(i + 2));
      expect(frame.sequence_number).toBe(frame.sequenceNumber);
    });
    const at = conn.frames.indexOf(frames[0] as Frame);
    const span = (conn.arrivals[at + 25] ?? 0) - (conn.arrivals[at] ?? 0);
    // 25 intervals of 20 ms, give or take the timers of a loaded host.
    expect(span).toBeGreaterThan(350);
    expect(span).toBeLessThan(900);
  });

  it('track both: inbound and outbound frames, each track numbered on its own, one sequence over all', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { conn } = await running(session, { track: 'both' });
    const start = await conn.next('start');
    expect((start.start as { tracks: string[] }).tracks).toEqual(['inbound', 'outbound']);
    // FreeSWITCH's two-track stream sends frames only while something plays to the call.
    expect((await stack.command(tenant, session, 'playback/silence')).status).toBe(202);
    await conn.until(() => media(conn, 'outbound').length >= 5 && media(conn).length >= 5);
    for (const track of ['inbound', 'outbound']) {
      const chunks = media(conn, track).map((f) => (f.media as { chunk: string }).chunk);
      expect(chunks.slice(0, 5)).toEqual(['1', '2', '3', '4', '5']);
    }
    const sequence = conn.frames.slice(1).map((f) => Number(f.sequenceNumber));
    expect(sequence).toEqual(sequence.map((_, i) => i + 1));
  });

  it("the upgrade is signed over the URL with the app's webhook secret, and verifies with nothing else", async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { streamId, conn } = await running(session);
    const headers = conn.headers as Record<string, string>;
    expect(headers['webhook-id']).toBe(streamId);
    expect(headers['x-voicegw-session-uuid']).toBe(session);
    const secret = await stack.redis.hget(stack.keys.app(tenant.appId), 'webhook_secret');
    // The Standard Webhooks library's own signing, over the URL (its verify() wants JSON).
    const signature = (key: string, url: string) =>
      new Webhook(key).sign(streamId, new Date(Number(headers['webhook-timestamp']) * 1000), url);
    expect(Math.abs(Number(headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(headers['webhook-signature']).toBe(signature(secret ?? '', app.url()));
    const other = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;
    expect(headers['webhook-signature']).not.toBe(signature(other, app.url()));
    expect(headers['webhook-signature']).not.toBe(signature(secret ?? '', app.url('/elsewhere')));
  });

  it('stream/stop: stop and close 1000 to the app, stream.stopped (stopped) with duration and frame counts, then command.result', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { streamId, conn } = await running(session);
    await conn.until(() => media(conn).length >= 10);
    const stop = await stack.commandAfterCooldown(tenant, session, 'stream/stop', {
      command_uid: 'stop-1',
    });
    expect(stop.status).toBe(202);
    expect(await conn.closed()).toBe(1000);
    const frame = conn.of('stop')[0];
    expect(frame).toMatchObject({
      streamSid: `MZ${hex(streamId)}`,
      stream_id: streamId,
      stop: { call_control_id: session, user_id: tenant.appId, reason: 'stopped' },
    });
    expect(conn.frames.at(-1)).toBe(frame);
    const result = await stack.events.ofCommand(session, 'command.result', 'stop-1');
    expect(result).toMatchObject({ command: 'stream.stop', success: true });
    const [stopped, ...more] = ofStream(session, streamId).filter(
      (e) => e.event === 'stream.stopped',
    );
    expect(more).toEqual([]);
    expect(stopped).toMatchObject({ reason: 'stopped', frames_received: 0 });
    expect(stopped?.duration_ms).toBeGreaterThanOrEqual(200);
    expect(stopped?.frames_sent).toBeGreaterThanOrEqual(media(conn).length);
    const events = stack.events.session(session);
    expect(events.indexOf(stopped as Ev)).toBeLessThan(events.indexOf(result));
  });

  it('the app closing ends the stream (closed_by_app); the call stays up and takes a new stream', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const first = await running(session);
    first.conn.socket.close(1000);
    expect(await stack.events.ofCommand(session, 'stream.stopped', first.uid)).toMatchObject({
      reason: 'closed_by_app',
    });
    const second = await running(session);
    await second.conn.next('media');
    expect(stack.events.has(session, 'call.hangup')).toBe(false);
  });

  it('hangup: stop and close 1000 to the app, stream.stopped (hangup) once, before call.hangup', async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { streamId, uid, conn } = await running(session);
    await conn.next('media');
    await stack.control.hangup(uuid);
    expect(await conn.closed()).toBe(1000);
    expect(conn.of('stop')[0]).toMatchObject({ stop: { reason: 'hangup' } });
    const hangup = await stack.events.of(session, 'call.hangup');
    const stopped = await stack.events.ofCommand(session, 'stream.stopped', uid);
    expect(stopped.reason).toBe('hangup');
    const events = stack.events.session(session);
    expect(events.indexOf(stopped)).toBeLessThan(events.indexOf(hangup));
    const ends = ofStream(session, streamId).filter((e) =>
      e.event.match(/^stream\.(stopped|failed)$/),
    );
    expect(ends).toHaveLength(1);
  });

  it.each([
    [
      'the app refuses the upgrade (HTTP 403)',
      () => Promise.resolve(app.url('/refused')),
      'HTTP 403',
    ],
    [
      'nothing listens',
      async () => `ws://127.0.0.1:${await freePort()}/agent`,
      'connection refused',
    ],
  ])(
    '%s: stream.failed and command.result false with the same reason',
    async (_, target, reason) => {
      app.refuse.set('/refused', 403);
      const url = await target();
      const { session } = await answeredCall(stack, tenant, did);
      const { streamId, uid } = await startStream(stack, tenant, session, { url });
      const failed = await stack.events.ofCommand(session, 'stream.failed', uid);
      expect(failed).toMatchObject({ stream_id: streamId, url, reason });
      const result = await stack.events.ofCommand(session, 'command.result', uid);
      expect(result).toMatchObject({ command: 'stream.start', success: false, error: reason });
      const events = stack.events.session(session);
      expect(events.indexOf(failed)).toBeLessThan(events.indexOf(result));
      expect(stack.events.has(session, 'stream.started', uid)).toBe(false);
    },
  );

  it('garbage from the app is counted by reason and ignored: the stream and the call go on', async ({
    expect,
  }) => {
    const { session } = await answeredCall(stack, tenant, did);
    const { streamId, conn } = await running(session);
    const reasons = ['not_json', 'bad_base64', 'unknown_event', 'binary', 'wrong_stream'];
    const before = await Promise.all(reasons.map((r) => counted('mediaStreamMalformedFrames', r)));
    const listenOnly = await counted('mediaStreamDroppedFrames', 'not_bidirectional');
    conn.send('{not json');
    conn.send({ event: 'media', media: { payload: '@@not base64@@' } });
    conn.send({ event: 'dance', streamSid: `MZ${hex(streamId)}` });
    conn.socket.send(Buffer.from([1, 2, 3]), { binary: true });
    conn.send({ event: 'clear', stream_id: randomUUID() });
    conn.send({ event: 'media', media: { payload: Buffer.alloc(160, 0xff).toString('base64') } });
    await expect
      .poll(() => Promise.all(reasons.map((r) => counted('mediaStreamMalformedFrames', r))))
      .toEqual(before.map((n) => n + 1));
    await expect
      .poll(() => counted('mediaStreamDroppedFrames', 'not_bidirectional'))
      .toBe(listenOnly + 1);
    const seen = media(conn).length;
    await conn.until(() => media(conn).length >= seen + 5);
    expect(conn.closeCode).toBeUndefined();
    const stop = await stack.commandAfterCooldown(tenant, session, 'stream/stop', {
      command_uid: 'after-garbage',
    });
    expect(stop.status).toBe(202);
    expect(await stack.events.ofCommand(session, 'command.result', 'after-garbage')).toMatchObject({
      success: true,
    });
  });

  it('a key pressed reaches the app as a dtmf frame', async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { conn } = await running(session);
    await stack.control.dtmf(uuid, '7');
    const dtmf = await conn.next('dtmf');
    expect(dtmf).toMatchObject({ dtmf: { track: 'inbound_track', digit: '7' } });
    expect(Date.parse(String(dtmf.occurred_at))).toBeGreaterThan(Date.now() - 10_000);
  });
});

describe('a node that does not allow private addresses', () => {
  it.each([
    ['a loopback address', '127.0.0.1'],
    ['a host name resolving to loopback', 'localhost'],
  ])('refuses %s at connect: stream.failed "address not allowed"', async (_, host) => {
    const strict = await stack.startNode({ ALLOW_LOCALHOST_WEBHOOKS: 'false' });
    const { session } = await answeredCall(stack, tenant, did, strict);
    const { uid } = await startStream(stack, tenant, session, { url: app.url('/strict', host) });
    expect(await stack.events.ofCommand(session, 'stream.failed', uid)).toMatchObject({
      reason: 'address not allowed',
    });
    expect(app.connections.some((c) => c.path === '/strict')).toBe(false);
  });
});
