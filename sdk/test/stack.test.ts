import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDispatcher, type Dispatcher } from '@voicegw/api';
import { readWavLayout } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatcherEnv } from '../../api/test/dispatcher-helpers.js';
import { ADMIN_KEY, mobile } from '../../media-node/test/node/harness.js';
import { useAudio, useStack } from '../../media-node/test/node/use-stack.js';
import {
  createWebhookHandler,
  VoiceGateway,
  VoiceGatewayAdmin,
  VoiceGatewayError,
  type EventName,
  type WebhookEvent,
  type WebhookRetryResult,
} from '../src/index.js';

// The SDK against a real gateway: the api listening on a port, a media node on the FreeSWITCH
// simulator (recording in file mode, as FreeSWITCH does by default), the webhook dispatcher, all
// on the test Redis; the app's webhooks arrive at a node:http server running
// createWebhookHandler, which only passes on verified events.

let dispatcher: Dispatcher;
let receiver: Server;
let admin: VoiceGatewayAdmin;
let gateway: VoiceGateway;
let secret = '';
let baseUrl = '';
const received: WebhookEvent[] = [];
const appId = `sdk_${randomBytes(4).toString('hex')}`;
const apiKey = `key-${randomBytes(12).toString('hex')}`;
const from = '0721230000';

const recordings = mkdtempSync(join(tmpdir(), 'voicegw-sdk-recordings-'));
const recordingEnv = { RECORDING_MODE: 'file', RECORDINGS_DIR: recordings };
const stack = useStack({
  // recording_url names the public address; the SDK fetches its path from its own baseUrl.
  apiEnv: { ...recordingEnv, PUBLIC_BASE_URL: 'https://voicegw.example' },
  nodeEnv: recordingEnv,
});
const audio = useAudio();
beforeAll(async () => {
  baseUrl = await stack.api.listen({ port: 0, host: '127.0.0.1' });
  // A failed delivery waits an hour for its next attempt: only webhooks.retry brings it sooner.
  dispatcher = await startDispatcher(
    dispatcherEnv(stack.redisPrefix, { WEBHOOK_RETRY_SCHEDULE: '0,1h' }),
  );
  receiver = createServer((req, res) => {
    // The secret is known once the app exists; every request is verified with it.
    void createWebhookHandler(secret, { '*': (event) => void received.push(event) })(req, res);
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  admin = new VoiceGatewayAdmin({ baseUrl, adminKey: ADMIN_KEY });
  await admin.apps.save(appId, { api_key: apiKey, webhook_url: hook, rate_limit: 10_000 });
  await admin.callerIds.add(appId, [from]);
  secret = (await admin.apps.get(appId)).webhook_secret;
  gateway = new VoiceGateway({ baseUrl, appId, apiKey });
}, 30_000);
afterAll(async () => {
  await dispatcher?.close();
  await new Promise<void>((resolve) => receiver?.close(() => resolve()));
  await rm(recordings, { recursive: true, force: true });
});

/** The first verified webhook of the session matching `match`, once it has arrived. */
async function webhook<N extends EventName>(
  session: string,
  name: N,
  match: (event: WebhookEvent<N>) => boolean = () => true,
): Promise<WebhookEvent<N>> {
  const find = () =>
    received.find(
      (e): e is WebhookEvent<N> =>
        e.event === name &&
        'session_uuid' in e &&
        e.session_uuid === session &&
        match(e as WebhookEvent<N>),
    );
  await expect.poll(find, { timeout: 10_000, message: `webhook ${name}` }).toBeDefined();
  return find()!;
}

describe('@voicegw/sdk against a running gateway', () => {
  it('dials, plays, collects digits and hangs up, every webhook verified and typed', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 100);
    const placed = await gateway.dial({ to, from, metadata: { order: 42 } });
    expect(placed.status).toBe('dialing');
    const session = placed.session_uuid;

    const answered = await webhook(session, 'call.answered');
    expect(answered).toMatchObject({ app_id: appId, metadata: { order: 42 } });
    expect((await gateway.dialStatus(session)).status).toBe('answered');
    expect(await gateway.sessions.get(session)).toMatchObject({
      direction: 'outbound',
      status: 'answered',
      to,
      from,
      metadata: { order: 42 },
    });

    const tone = `${audio.base}/tone300ms.wav`;
    const play = await gateway.sessions.playbackStart(session, { urls: [tone] });
    expect(play).toMatchObject({ status: 'in_progress', command_uid: expect.any(String) });
    const started = await webhook(
      session,
      'playback.started',
      (e) => e.command_uid === play.command_uid,
    );
    expect(started.urls).toEqual([tone]);
    const stopped = await webhook(
      session,
      'playback.stopped',
      (e) => e.command_uid === play.command_uid,
    );
    expect(stopped.duration_ms).toBeGreaterThan(0);

    const digits = await gateway.sessions.playAndGetDigits(session, {
      prompt_files: [tone],
      max_digits: 4,
    });
    const result = await webhook(
      session,
      'command.result',
      (e) => e.command_uid === digits.command_uid,
    );
    expect(result).toMatchObject({ success: true, command: 'play_and_get_digits' });
    await stack.control.dtmf(session.slice(6), '12#');
    const collected = await webhook(session, 'digits.collected');
    expect(collected).toMatchObject({
      digits: '12',
      terminator: '#',
      status: 'success',
      command_uid: digits.command_uid,
    });
    expect((await webhook(session, 'dtmf')).digit).toBe('1');

    const listed = await gateway.sessions.list({ status: 'active', direction: 'outbound' });
    expect(listed.sessions.map((s) => s.session_uuid)).toContain(session);

    await gateway.sessions.hangup(session);
    const hangup = await webhook(session, 'call.hangup');
    expect(hangup.hangup_cause).toBe('completed');
    const ended = await gateway.sessions.get(session);
    expect(ended).toMatchObject({ status: 'ended', hangup_cause: 'completed' });

    const names = received
      .filter((e) => 'session_uuid' in e && e.session_uuid === session)
      .map((e) => e.event);
    for (const name of [
      'session.dialing',
      'session.ringing',
      'call.answered',
      'command.result',
      'playback.started',
      'playback.stopped',
      'dtmf',
      'digits.collected',
      'call.hangup',
    ])
      expect(names).toContain(name);
    for (const event of received.filter((e) => 'session_uuid' in e && e.session_uuid === session)) {
      expect(event).toMatchObject({
        app_id: appId,
        event_id: expect.any(String),
        timestamp: expect.any(String),
        metadata: { order: 42 },
      });
    }
    const all: string[] = [];
    for await (const s of gateway.sessions.all({ status: 'ended' })) all.push(s.session_uuid);
    expect(all).toContain(session);
  });

  it('manages conferences and the app through typed calls, and throws typed errors', async () => {
    const { room_id: room } = await gateway.conferences.create(
      `sdk-${randomBytes(3).toString('hex')}`,
    );
    expect((await gateway.conferences.get(room)).members).toBe(0);
    const rooms: string[] = [];
    for await (const r of gateway.conferences.all(1)) rooms.push(r.room_id);
    expect(rooms).toContain(room);
    expect(await gateway.conferences.members(room)).toEqual({
      room_id: room,
      members: [],
      cursor: '',
    });
    expect(await gateway.conferences.delete(room)).toEqual({ room_id: room });
    await expect
      .poll(() => received.find((e) => e.event === 'conference.created' && e.room_id === room))
      .toMatchObject({ app_id: appId });

    const missing = await gateway.conferences.get(room).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(VoiceGatewayError);
    expect(missing).toMatchObject({ status: 404, error: 'Room not found', code: 'room_not_found' });
    const refused = await gateway
      .dial({ to: mobile(), from: '0739999999' })
      .catch((e: unknown) => e);
    expect(refused).toMatchObject({ status: 403, code: 'cid_not_allowed' });

    expect((await admin.dids.add(appId, ['0733330000'])).dids).toEqual(['0733330000']);
    expect((await admin.dids.remove(appId, '0733330000')).success).toBe(true);
    expect((await admin.callerIds.list(appId)).cids).toEqual([from]);
    expect(await admin.deadLetters.list(appId)).toMatchObject({ total: 0, dead_letters: [] });
    expect((await admin.health()).status).toBe('ok');
    const unauthorized = await new VoiceGatewayAdmin({
      baseUrl,
      adminKey: 'x'.repeat(20),
    }).apps
      .get(appId)
      .catch((e: unknown) => e);
    expect(unauthorized).toMatchObject({
      status: 401,
      error: 'Invalid admin API key',
      code: 'invalid_admin_key',
    });
  });
  it('records a call and streams the WAV of its recording.completed through the SDK', async () => {
    const to = mobile();
    await stack.control.number(to, 'answer', 100);
    const { session_uuid: session } = await gateway.dial({ to, from });
    await webhook(session, 'call.answered');

    const startSentAt = Date.now();
    const start = await gateway.sessions.recordStart(session);
    const started = await webhook(
      session,
      'command.result',
      (e) => e.command_uid === start.command_uid,
    );
    expect(started).toMatchObject({ command: 'record.start', success: true });
    const startSeenAt = Date.now();
    // The call's audio (the simulator's tone) for a while; past record/start's 2 s cooldown.
    await new Promise((resolve) => setTimeout(resolve, 2200));
    const stopSentAt = Date.now();
    await gateway.sessions.recordStop(session);
    const completed = await webhook(
      session,
      'recording.completed',
      (e) => e.command_uid === start.command_uid,
    );
    const completedAt = Date.now();
    expect(completed).toMatchObject({ app_id: appId, session_uuid: session });

    const wav = await bytesOf(gateway.recordingFromUrl(completed.recording_url));
    const layout = readWavLayout(wav);
    expect(layout).toMatchObject({ sampleRate: 8000, channels: 1, blockAlign: 2 });
    // A finished file: the header's sizes are written and match the bytes.
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(layout?.declaredBytes).toBe(wav.length - (layout?.dataOffset ?? 0));
    const seconds = (layout?.declaredBytes ?? 0) / (layout?.byteRate ?? 1);
    expect(completed.duration).toBe(Math.round(seconds * 1000) / 1000);
    // From before start's command.result to after record/stop was sent.
    expect(seconds).toBeGreaterThan((stopSentAt - startSeenAt) / 1000 - 0.1);
    expect(seconds).toBeLessThan((completedAt - startSentAt) / 1000);

    // The session's latest recording is the same file.
    expect((await bytesOf(gateway.sessions.recording(session))).equals(wav)).toBe(true);
    await gateway.sessions.hangup(session);
    await webhook(session, 'call.hangup');
  });

  it("retries a waiting app's webhooks now once its receiver is fixed (admin.webhooks.retry)", async () => {
    const lane = await laneApp();
    // Nothing has failed yet: nothing waits.
    expect(await admin.webhooks.retry(lane.appId)).toEqual({
      success: true,
      app_id: lane.appId,
      waiting: 0,
      head: null,
    });
    const { room_id: room } = await lane.gateway.conferences.create('lane');
    await expect.poll(() => lane.refused).toBeGreaterThan(0);
    // The first attempt failed: the event waits in the app's lane for an hour.
    let waiting: WebhookRetryResult | undefined;
    await expect
      .poll(async () => (waiting = await admin.webhooks.retry(lane.appId)).waiting)
      .toBe(1);
    expect(waiting).toMatchObject({
      success: true,
      app_id: lane.appId,
      waiting: 1,
      head: { event: 'conference.created', attempts: 1, last_status: 503, last_error: 'HTTP 503' },
    });
    expect(Date.parse(waiting?.head?.scheduled_at ?? '')).toBeGreaterThan(Date.now() + 30 * 60_000);

    lane.mend();
    // Retry now until the mended receiver has it (a retry racing the previous failed attempt
    // may find that attempt still in flight).
    await expect
      .poll(async () => {
        if (lane.delivered.length === 0) await admin.webhooks.retry(lane.appId);
        return lane.delivered;
      })
      .toEqual([expect.objectContaining({ event: 'conference.created', room_id: room })]);
    await expect
      .poll(() => admin.webhooks.retry(lane.appId))
      .toEqual({ success: true, app_id: lane.appId, waiting: 0, head: null });
    await lane.close();
  });
});

async function bytesOf(body: Promise<ReadableStream<Uint8Array>>): Promise<Buffer> {
  return Buffer.from(await new Response(await body).arrayBuffer());
}

/** An app whose receiver answers 503 until mended, then passes on verified events. */
async function laneApp() {
  const laneAppId = `sdk_lane_${randomBytes(4).toString('hex')}`;
  const key = `key-${randomBytes(12).toString('hex')}`;
  const state = { healthy: false, refused: 0, secret: '', delivered: [] as WebhookEvent[] };
  const server = createServer((req, res) => {
    if (!state.healthy) {
      state.refused++;
      req.resume();
      res.writeHead(503).end();
      return;
    }
    void createWebhookHandler(state.secret, { '*': (event) => void state.delivered.push(event) })(
      req,
      res,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  await admin.apps.save(laneAppId, { api_key: key, webhook_url: url, rate_limit: 10_000 });
  state.secret = (await admin.apps.get(laneAppId)).webhook_secret;
  return {
    appId: laneAppId,
    gateway: new VoiceGateway({ baseUrl, appId: laneAppId, apiKey: key }),
    get refused() {
      return state.refused;
    },
    delivered: state.delivered,
    mend: () => {
      state.healthy = true;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
