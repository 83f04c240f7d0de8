// Bidirectional media streams end to end: what the application sends is heard by the caller
// (the simulator's heard.wav), paced by the node; marks come back once their audio has played,
// clear returns them at once, and the gateway's own playback (or a conference) takes the call
// from the stream.
// Then the one module stream a call has, shared with stream-mode recordings, and a leak check.
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readWavLayout } from '@voicegw/shared';
import { freePort } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RawData } from 'ws';
import { encodeSample } from '../../src/media-stream/g711.js';
import { answeredCall, request } from './calls.js';
import type { StackOptions } from './harness.js';
import { startStream, StreamApp, type AppConnection } from './stream-app.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

const did = '0736670000';
let app: StreamApp;
beforeAll(async () => {
  app = await StreamApp.start();
});
afterAll(() => app.close());

/** `ms` of a 1 kHz tone as μ-law, in base64 pieces of `pieceMs`. */
function tone(ms: number, pieceMs = 20): string[] {
  const samples = Buffer.from(
    Array.from({ length: ms * 8 }, (_, i) =>
      encodeSample(Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / 8000))),
    ),
  );
  const pieces: string[] = [];
  for (let at = 0; at < samples.length; at += pieceMs * 8) {
    pieces.push(samples.subarray(at, at + pieceMs * 8).toString('base64'));
  }
  return pieces;
}

const sendAudio = (conn: AppConnection, pieces: readonly string[]): void => {
  for (const payload of pieces) conn.send({ event: 'media', media: { payload } });
};

/** When the mark of this name came back (performance.now()), once it has. */
const markBack = (conn: AppConnection, name: string, timeoutMs = 8000): Promise<number> =>
  conn.until(
    () => {
      const i = conn.frames.findIndex(
        (f) => f.event === 'mark' && (f.mark as { name: string }).name === name,
      );
      return i === -1 ? undefined : (conn.arrivals[i] ?? 0);
    },
    timeoutMs,
    `mark ${name}`,
  );

/** Whether each 20 ms of what the call heard (from its start) is loud. */
async function heard(controlUrl: string, uuid: string): Promise<boolean[]> {
  const res = await fetch(`${controlUrl}/sim/calls/${uuid}/heard.wav`);
  expect(res.status).toBe(200);
  const wav = Buffer.from(await res.arrayBuffer());
  const layout = readWavLayout(wav);
  if (!layout) throw new Error('heard.wav is not a WAV');
  const data = wav.subarray(layout.dataOffset);
  const window = (layout.sampleRate / 50) * 2;
  const loud: boolean[] = [];
  for (let at = 0; at + window <= data.length; at += window) {
    let sum = 0;
    for (let i = at; i < at + window; i += 2) sum += data.readInt16LE(i) ** 2;
    loud.push(Math.sqrt(sum / (window / 2)) > 1000);
  }
  return loud;
}

/** How many windows are loud, and whether they are all in one run. */
function loudRun(loud: boolean[]): { count: number; contiguous: boolean } {
  const first = loud.indexOf(true);
  const last = loud.lastIndexOf(true);
  const count = loud.filter(Boolean).length;
  return { count, contiguous: first === -1 || count === last - first + 1 };
}

describe('bidirectional media streams', () => {
  const stack = useStack({ nodeEnv: { ALLOW_LOCALHOST_WEBHOOKS: 'true' } });
  const tenant = useTenant(stack, { dids: [did] });
  const audio = useAudio();

  async function twoWay(session: string): Promise<{ uid: string; conn: AppConnection }> {
    const body = { url: app.url('/two-way'), bidirectional: true };
    const { streamId, uid } = await startStream(stack, tenant, session, body);
    const conn = await app.connection(streamId);
    await conn.next('start');
    return { uid, conn };
  }

  async function dropped(reason: string): Promise<number> {
    const { values } = await stack.node.metrics.mediaStreamDroppedFrames.get();
    return values.find((v) => v.labels.reason === reason)?.value ?? 0;
  }

  it("the app's audio is heard by the caller whole, however it is cut, and its mark comes back once it has played", async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { uid, conn } = await twoWay(session);
    const sentAt = performance.now();
    // 30 ms pieces, sent at once: the node plays them in 20 ms chunks, without gaps.
    sendAudio(conn, tone(1000, 30));
    conn.send({ event: 'mark', mark: { name: 'after-tone' } });
    const elapsed = (await markBack(conn, 'after-tone')) - sentAt;
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1800);
    const run = loudRun(await heard(stack.sim.controlUrl, uuid));
    expect(run.contiguous).toBe(true);
    expect(run.count).toBeGreaterThanOrEqual(48);
    expect(run.count).toBeLessThanOrEqual(52);
    const stop = await stack.commandAfterCooldown(tenant, session, 'stream/stop');
    expect(stop.status).toBe(202);
    expect(await stack.events.ofCommand(session, 'stream.stopped', uid)).toMatchObject({
      frames_received: 34,
    });
  });

  it("after the node's event loop stalls, an echo's audio is heard on time again: the quiet audio the stalls left queued is dropped and counted", async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { conn } = await twoWay(session);
    // An echo agent: each media frame straight back, so the app sends at real-time pace.
    conn.socket.on('message', (data: RawData) => {
      const text = Buffer.isBuffer(data) ? data.toString('utf8') : '{}';
      const frame = JSON.parse(text) as { event?: string; media?: { payload: string } };
      if (frame.event === 'media') conn.send({ event: 'media', media: frame.media });
    });
    await sleep(400);
    const before = await dropped('late_playout');
    // Three stalls of 150 ms (a busy loop, a host pause): each misses seven ticks of the pacer,
    // and without a catch-up would leave 140 ms more of the echo queued for good.
    for (let i = 0; i < 3; i++) {
      const until = performance.now() + 150;
      while (performance.now() < until);
      await sleep(300);
    }
    const said = await fetch(`${stack.sim.controlUrl}/sim/calls/${uuid}/say`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ tone: { hz: 1000, ms: 100 } }),
    });
    expect(said.status).toBe(202);
    const saidAt = ((await said.json()) as { at_ms: number }).at_ms;
    await sleep(700);
    const loud = await heard(stack.sim.controlUrl, uuid);
    const echoedAt = loud.indexOf(true, Math.floor(saidAt / 20)) * 20;
    // Its 20 ms frame, the trip to the app and back, a tick and the module's own: 40-80 ms.
    expect(echoedAt - saidAt).toBeGreaterThan(0);
    expect(echoedAt - saidAt).toBeLessThan(160);
    expect(await dropped('late_playout')).toBeGreaterThan(before);
  });

  it('a mark with nothing queued comes back at once; clear drops the queue and returns every pending mark at once', async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { conn } = await twoWay(session);
    let sentAt = performance.now();
    conn.send({ event: 'mark', mark: { name: 'idle' } });
    expect((await markBack(conn, 'idle')) - sentAt).toBeLessThan(200);

    sendAudio(conn, tone(5000));
    conn.send({ event: 'mark', mark: { name: 'm1' } });
    sendAudio(conn, tone(2000));
    conn.send({ event: 'mark', mark: { name: 'm2' } });
    await new Promise((resolve) => setTimeout(resolve, 500));
    sentAt = performance.now();
    conn.send({ event: 'clear' });
    const [m1, m2] = [await markBack(conn, 'm1'), await markBack(conn, 'm2')];
    expect(m1 - sentAt).toBeLessThan(200);
    expect(m2).toBeGreaterThanOrEqual(m1);
    // What had played before the clear, and no more.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const run = loudRun(await heard(stack.sim.controlUrl, uuid));
    expect(run.count).toBeGreaterThanOrEqual(15);
    expect(run.count).toBeLessThanOrEqual(40);
  });

  it("a playback takes the call: the queue is dropped, its marks come back, and the app's audio meanwhile is dropped and counted", async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { conn } = await twoWay(session);
    sendAudio(conn, tone(5000));
    conn.send({ event: 'mark', mark: { name: 'queued' } });
    const before = await dropped('gateway_audio');
    const play = await stack.commandAfterCooldown(tenant, session, 'playback/start', {
      command_uid: 'gateway-audio',
      urls: [`${audio.base}/tone1500ms.wav`],
    });
    expect(play.status).toBe(202);
    await markBack(conn, 'queued', 3000);
    await stack.events.ofCommand(session, 'playback.started', 'gateway-audio');
    sendAudio(conn, tone(200));
    await expect.poll(() => dropped('gateway_audio')).toBe(before + 10);
    await stack.events.ofCommand(session, 'playback.stopped', 'gateway-audio', 5000);
    // The playback is over: the app's audio plays again.
    const sentAt = performance.now();
    sendAudio(conn, tone(200));
    conn.send({ event: 'mark', mark: { name: 'after-playback' } });
    expect((await markBack(conn, 'after-playback')) - sentAt).toBeGreaterThanOrEqual(180);
  });

  it("conference/join takes the call likewise: the stream's queue is dropped, its marks come back, the stream stays up", async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { conn } = await twoWay(session);
    const room = await request(stack, tenant, 'POST', '/api/v1/conferences', { name: 'streamed' });
    expect(room.status).toBe(201);
    sendAudio(conn, tone(5000));
    conn.send({ event: 'mark', mark: { name: 'before-join' } });
    const joinedAt = performance.now();
    const join = await stack.commandAfterCooldown(tenant, session, 'conference/join', {
      room_id: room.body.room_id,
    });
    expect(join.body).toMatchObject({ status: 'joining' });
    expect((await markBack(conn, 'before-join')) - joinedAt).toBeLessThan(2000);
    await stack.events.of(session, 'conference.member.joined');
    const seen = conn.of('media').length;
    await conn.until(() => conn.of('media').length >= seen + 5);
    expect(conn.closeCode).toBeUndefined();
  });

  it("a bridge takes the call likewise: the queue is dropped, its marks come back, the app's audio is dropped (counted) while bridged and plays again after the unbridge", async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const peer = await answeredCall(stack, tenant, did);
    const { conn } = await twoWay(session);
    sendAudio(conn, tone(5000));
    conn.send({ event: 'mark', mark: { name: 'before-bridge' } });
    const bridgedAt = performance.now();
    const bridge = await stack.command(tenant, session, 'bridge', { session_uuid: peer.session });
    expect(bridge.status).toBe(202);
    expect((await markBack(conn, 'before-bridge')) - bridgedAt).toBeLessThan(2000);
    await stack.events.of(session, 'call.bridged');
    const before = await dropped('gateway_audio');
    sendAudio(conn, tone(200));
    await expect.poll(() => dropped('gateway_audio')).toBe(before + 10);

    const unbridge = await stack.commandAfterCooldown(tenant, session, 'unbridge');
    expect(unbridge.status).toBe(202);
    await stack.events.of(session, 'call.unbridged');
    const sentAt = performance.now();
    sendAudio(conn, tone(200));
    conn.send({ event: 'mark', mark: { name: 'after-unbridge' } });
    expect((await markBack(conn, 'after-unbridge')) - sentAt).toBeGreaterThanOrEqual(180);
    expect(await dropped('gateway_audio')).toBe(before + 10);
    expect(conn.closeCode).toBeUndefined();
  });
});

describe('the call has one module stream: stream-mode recordings and media streams exclude each other', () => {
  let dir: string;
  let options: StackOptions;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voicegw-stream-recordings-'));
    const port = await freePort();
    const url = `ws://127.0.0.1:${port}/record`;
    const mode = { RECORDING_MODE: 'stream', RECORDING_SERVICE_URL: url, RECORDINGS_DIR: dir };
    options = {
      apiEnv: mode,
      nodeEnv: { ...mode, RECORDING_PORT: String(port), ALLOW_LOCALHOST_WEBHOOKS: 'true' },
    };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));
  const stack = useStack(() => options);
  const tenant = useTenant(stack, { dids: [did] });

  it("record/start beside a media stream answers success false: the call's audio stream is in use", async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const { uid } = await startStream(stack, tenant, session, { url: app.url('/beside') });
    await stack.events.ofCommand(session, 'stream.started', uid);
    const rec = await stack.commandAfterCooldown(tenant, session, 'record/start', {
      command_uid: 'rec',
    });
    expect(rec.status).toBe(202);
    expect(await stack.events.ofCommand(session, 'command.result', 'rec')).toMatchObject({
      success: false,
      error: "The call's audio stream is in use by a media stream",
    });
  });

  it('stream/start beside a stream-mode recording fails: stream.failed, command.result false', async () => {
    const { session } = await answeredCall(stack, tenant, did);
    const rec = await stack.commandAfterCooldown(tenant, session, 'record/start', {
      command_uid: 'rec',
    });
    expect(rec.status).toBe(202);
    await stack.events.ofCommand(session, 'command.result', 'rec');
    const { uid } = await startStream(stack, tenant, session, { url: app.url('/beside') });
    const reason = "The call's audio stream is in use by a recording";
    expect(await stack.events.ofCommand(session, 'stream.failed', uid)).toMatchObject({ reason });
    expect(await stack.events.ofCommand(session, 'command.result', uid)).toMatchObject({
      success: false,
      error: reason,
    });
  });
});

describe('leaks', () => {
  const stack = useStack({ nodeEnv: { ALLOW_LOCALHOST_WEBHOOKS: 'true' } });
  const tenant = useTenant(stack, { dids: [did] });

  it('200 bidirectional streams started and stopped one after another leave no stream, socket, listener or tick behind', async () => {
    const { session: id } = await answeredCall(stack, tenant, did);
    const session = stack.node.sessions.get(id);
    if (!session) throw new Error('no session');
    const { streams } = stack.node;
    const listeners = session.channel.listenerCount('event');
    const report = {
      started: () => Promise.resolve(),
      failed: (reason: string) => Promise.reject(new Error(reason)),
    };
    for (let i = 0; i < 200; i++) {
      const request = {
        streamId: randomUUID(),
        commandUid: `leak-${i}`,
        url: app.url('/leak'),
        track: 'both' as const,
        bidirectional: true,
        customParameters: {},
      };
      const { confirmed } = await session.serial(() => streams.start(session, request, report));
      await confirmed;
      const conn = await app.connection(request.streamId);
      sendAudio(conn, tone(100));
      conn.send({ event: 'mark', mark: { name: 'm' } });
      expect(await session.serial(() => streams.stop(session))).toBe(true);
    }
    expect(streams.size).toBe(0);
    expect(streams.endpoint.size).toBe(0);
    expect(streams.pacer.subscribers).toBe(0);
    expect((await stack.node.metrics.mediaStreams.get()).values[0]?.value).toBe(0);
    expect(session.channel.listenerCount('event')).toBe(listeners);
    await expect.poll(() => app.open).toBe(0);
  }, 60_000);
});
