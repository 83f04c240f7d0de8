// Recording end to end, in both RECORDING_MODEs: the api accepts record/start and record/stop;
// in file mode the simulator records the call itself (uuid_record, as every FreeSWITCH does)
// into the recordings directory, reached through FS_RECORDINGS_DIR (another path to the same
// directory, as FreeSWITCH's mount of the shared volume), writing the WAV sizes only at the
// end; in stream mode it streams L16 audio (as mod_audio_stream does) to the node's receiver,
// which writes the WAV. The api serves it at recording_url and file.wav; retention then makes
// it a bare 404.
import { randomUUID } from 'node:crypto';
import { access, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import {
  type AudioServer,
  type Ev,
  type Stack,
  type StackOptions,
  type Tenant,
} from './harness.js';
import { EslClient } from '@voicegw/simulator/client';
import { answeredCall } from './calls.js';
import { useAudio, useStack, useTenant } from './use-stack.js';

let stack: Stack;
let tenant: Tenant;
let audio: AudioServer;
let dir: string;
/** file mode: `dir` as the simulator (FreeSWITCH) is told to write to it. */
let fsDir: string;
let receiverPort: number;
const did = '0738880000';
const PUBLIC = 'http://voicegw.test:8443';
type Mode = 'file' | 'stream';

/** A stack recording in `mode`; each describe below gets its own. */
function recordingStack(mode: Mode): void {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voicegw-recordings-'));
    fsDir = `${dir}-as-freeswitch-sees-it`;
    await symlink(dir, fsDir);
    receiverPort = await freePort();
    const url = `ws://127.0.0.1:${receiverPort}/record`;
    const modeEnv: Record<string, string> =
      mode === 'file'
        ? { RECORDING_MODE: mode, FS_RECORDINGS_DIR: fsDir }
        : {
            RECORDING_MODE: mode,
            RECORDING_SERVICE_URL: url,
            RECORDING_PORT: String(receiverPort),
            RECORDING_HOST: '127.0.0.1',
          };
    options = {
      apiEnv: {
        RECORDING_MODE: mode,
        ...(mode === 'stream' ? { RECORDING_SERVICE_URL: url } : {}),
        RECORDINGS_DIR: dir,
        PUBLIC_BASE_URL: PUBLIC,
      },
      nodeEnv: { ...modeEnv, RECORDINGS_DIR: dir },
    };
  });
  afterAll(async () => {
    await rm(fsDir, { force: true });
    await rm(dir, { recursive: true, force: true });
  });
  let options: StackOptions;
  const modeStack = useStack(() => options);
  const modeTenant = useTenant(modeStack, { dids: [did] });
  const modeAudio = useAudio();
  // The helpers below serve both modes' describes: each points them at its own stack.
  beforeAll(() => {
    [stack, tenant, audio] = [modeStack, modeTenant, modeAudio];
  });
}

/**
 * record/start and record/stop share the 2 s "heavy" cooldown: wait it out, as a client would.
 * `sentAt` is when the answered request was sent.
 */
async function command(session: string, name: string, body?: unknown) {
  let sentAt = 0;
  const res = await stack.commandAfterCooldown(tenant, session, name, body, (at) => (sentAt = at));
  return { ...res, sentAt };
}

const eventOf = (session: string, event: string, commandUid: string, timeoutMs?: number) =>
  stack.events.ofCommand(session, event, commandUid, timeoutMs);

async function startRecording(session: string, uid: string): Promise<Ev> {
  expect((await command(session, 'record/start', { command_uid: uid })).status).toBe(202);
  return eventOf(session, 'command.result', uid);
}

/** GET through the api (recording_url is absolute; the api is injected in process). */
async function get(url: string, headers: Record<string, string> = tenant.headers) {
  const path = url.startsWith('http') ? new URL(url).pathname : url;
  return stack.api.inject({ method: 'GET', url: path, headers });
}

interface Wav {
  readonly sampleRate: number;
  readonly dataBytes: number;
  readonly seconds: number;
  readonly samples: Int16Array;
}

/** Checks every field of the 44-byte header against the bytes, as a strict reader would. */
function parseWav(buf: Buffer, rate = 8000): Wav {
  expect(buf.length).toBeGreaterThanOrEqual(44);
  expect(buf.toString('ascii', 0, 4)).toBe('RIFF');
  expect(buf.readUInt32LE(4)).toBe(buf.length - 8);
  expect(buf.toString('ascii', 8, 16)).toBe('WAVEfmt ');
  expect(buf.readUInt32LE(16)).toBe(16);
  expect(buf.readUInt16LE(20)).toBe(1); // PCM
  expect(buf.readUInt16LE(22)).toBe(1); // mono
  expect(buf.readUInt32LE(24)).toBe(rate);
  expect(buf.readUInt32LE(28)).toBe(rate * 2);
  expect(buf.readUInt16LE(32)).toBe(2);
  expect(buf.readUInt16LE(34)).toBe(16);
  expect(buf.toString('ascii', 36, 40)).toBe('data');
  const dataBytes = buf.readUInt32LE(40);
  expect(dataBytes).toBe(buf.length - 44);
  const data = buf.subarray(44);
  const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + dataBytes));
  return { sampleRate: rate, dataBytes, seconds: dataBytes / (rate * 2), samples };
}

const peak = (samples: Int16Array) => samples.reduce((max, s) => Math.max(max, Math.abs(s)), 0);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The simulated caller says a 10 s tone (the simulator's control API, POST /say). */
async function saysTone(session: string): Promise<void> {
  const res = await fetch(`${stack.control.url}/sim/calls/${session.slice(6)}/say`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ tone: { hz: 440, ms: 10_000 } }),
  });
  expect(res.status).toBe(202);
}

for (const mode of ['file', 'stream'] as const) {
  // Sequential suites (each its own stack); the tests of one run concurrently.
  describe(`recording, ${mode} mode`, () => {
    recordingStack(mode);

    describe.concurrent('commands', () => {
      it('record/start succeeds; record/stop gives command.result and recording.completed; recording_url serves the whole WAV at once', async () => {
        const { session } = await answeredCall(stack, tenant, did);
        // The caller talks through the recording (a caller who says nothing is silence).
        await saysTone(session);
        const startSentAt = Date.now();
        const started = await startRecording(session, 'rec-1');
        const startSeenAt = Date.now();
        expect(started).toMatchObject({ command: 'record.start', success: true });

        const stop = await command(session, 'record/stop', { command_uid: 'stop-1' });
        expect(stop.status).toBe(202);
        const result = await eventOf(session, 'command.result', 'stop-1');
        const stopSeenAt = Date.now();
        expect(result).toMatchObject({ command: 'record.stop', success: true });
        const completed = await eventOf(session, 'recording.completed', 'rec-1');
        expect(Object.keys(completed)).toEqual(
          expect.arrayContaining(['recording_url', 'duration', 'command_uid']),
        );
        const events = stack.events.session(session);
        expect(events.indexOf(result)).toBeLessThan(events.indexOf(completed));

        const url = String(completed.recording_url);
        expect(url).toMatch(
          new RegExp(`^${PUBLIC}/api/v1/sessions/${session}/recording/[0-9a-f-]{36}\\.wav$`),
        );
        const res = await get(url);
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('audio/wav');
        const wav = parseWav(res.rawPayload);
        // The event's duration is the file's (to the millisecond), and the file holds the time
        // between start and stop: recording runs from before start's command.result (streaming:
        // just after) until after record/stop was sent, and within the two commands' round trips.
        expect(completed.duration).toBe(Math.round(wav.seconds * 1000) / 1000);
        expect(wav.seconds).toBeGreaterThan((stop.sentAt - startSeenAt) / 1000 - 0.1);
        expect(wav.seconds).toBeLessThan((stopSeenAt - startSentAt) / 1000);
        expect(peak(wav.samples)).toBeGreaterThan(1000); // what the caller says, not silence

        // file.wav is the session's latest recording: the same bytes.
        const latest = await get(`/api/v1/sessions/${session}/recording/file.wav`);
        expect(latest.statusCode).toBe(200);
        expect(latest.rawPayload.equals(res.rawPayload)).toBe(true);
        // GET /sessions/{uuid} lists it among the session's recordings.
        const recordingId = /([0-9a-f-]{36})\.wav$/.exec(url)?.[1];
        const read = await get(`/api/v1/sessions/${session}`);
        expect(read.json()).toMatchObject({ recording_ids: [recordingId] });
        // The recording's silence stream is the command's own business: no playback events.
        expect(events.filter((e) => String(e.event).startsWith('playback.'))).toEqual([]);
      });

      it('file.wav during a recording is a valid WAV of the audio that has arrived so far', async () => {
        const { session } = await answeredCall(stack, tenant, did);
        // Recording begins after this (file mode: before start's command.result).
        const startedAt = Date.now();
        await startRecording(session, 'rec-live');
        const first = await get(`/api/v1/sessions/${session}/recording/file.wav`);
        expect(first.statusCode).toBe(200);
        expect(first.headers['content-type']).toBe('audio/wav');
        expect(parseWav(first.rawPayload).seconds).toBeLessThan((Date.now() - startedAt) / 1000);

        await sleep(1200);
        const second = await get(`/api/v1/sessions/${session}/recording/file.wav`);
        const elapsed = (Date.now() - startedAt) / 1000;
        const wav = parseWav(second.rawPayload);
        // What has arrived: audio of the time slept (less what is still on its way on a busy
        // machine, where every process of this test shares one event loop), never more than elapsed.
        expect(wav.seconds).toBeGreaterThan(0.6);
        expect(wav.seconds).toBeLessThanOrEqual(elapsed);

        expect((await command(session, 'record/stop')).status).toBe(202);
        const completed = await eventOf(session, 'recording.completed', 'rec-live');
        expect(Number(completed.duration)).toBeGreaterThanOrEqual(wav.seconds);
      });

      it('record/start stops the current playback first (its playback.stopped fires) and keeps quiet itself', async () => {
        const { session } = await answeredCall(stack, tenant, did);
        const url = `${audio.base}/tone5000ms.wav`;
        expect(
          (await command(session, 'playback/start', { urls: [url], command_uid: 'p' })).status,
        ).toBe(202);
        await eventOf(session, 'playback.started', 'p');
        await startRecording(session, 'rec-p');
        expect(await eventOf(session, 'playback.stopped', 'p')).toMatchObject({ urls: [url] });
        expect((await command(session, 'record/stop')).status).toBe(202);
        await eventOf(session, 'recording.completed', 'rec-p');
        const own = stack.events.session(session).filter((e) => e.command_uid === 'rec-p');
        expect(own.map((e) => e.event)).toEqual(['command.result', 'recording.completed']);
      });

      it('record/start while recording answers success false and the first recording goes on', async () => {
        const { session } = await answeredCall(stack, tenant, did);
        await startRecording(session, 'rec-a');
        expect(await startRecording(session, 'rec-b')).toMatchObject({
          success: false,
          error: 'Session is already recording',
        });
        expect((await command(session, 'record/stop')).status).toBe(202);
        const completed = await eventOf(session, 'recording.completed', 'rec-a');
        expect(Number(completed.duration)).toBeGreaterThan(1.5); // it ran through the second start
      });

      it('record/stop without a recording answers success false and no recording.completed', async () => {
        const { session } = await answeredCall(stack, tenant, did);
        expect((await command(session, 'record/stop', { command_uid: 'lonely' })).status).toBe(202);
        expect(await eventOf(session, 'command.result', 'lonely')).toMatchObject({
          command: 'record.stop',
          success: false,
          error: 'Session is not recording',
        });
        expect(stack.events.has(session, 'recording.completed')).toBe(false);
      });

      it('a hangup while recording finalises the file and publishes recording.completed before call.hangup', async () => {
        const { session } = await answeredCall(stack, tenant, did);
        await startRecording(session, 'rec-h');
        await sleep(600);
        await stack.control.hangup(session.slice(6));
        const completed = await eventOf(session, 'recording.completed', 'rec-h');
        const hangup = await stack.events.of(session, 'call.hangup');
        const events = stack.events.session(session);
        expect(events.indexOf(completed)).toBeLessThan(events.indexOf(hangup));
        const res = await get(String(completed.recording_url));
        expect(res.statusCode).toBe(200);
        const wav = parseWav(res.rawPayload);
        expect(completed.duration).toBe(Math.round(wav.seconds * 1000) / 1000);
        expect(wav.seconds).toBeGreaterThan(0.3);
      });

      it("another app's recording answers 403; an unknown session or recording a bare 404", async () => {
        const { session } = await answeredCall(stack, tenant, did);
        await startRecording(session, 'rec-o');
        expect((await command(session, 'record/stop')).status).toBe(202);
        const completed = await eventOf(session, 'recording.completed', 'rec-o');
        const other = await stack.tenant();

        for (const url of [
          String(completed.recording_url),
          `/api/v1/sessions/${session}/recording/file.wav`,
        ]) {
          const res = await get(url, other.headers);
          expect(res.statusCode).toBe(403);
          expect(res.json()).toEqual({
            success: false,
            error: 'Session belongs to a different application',
            code: 'session_forbidden',
          });
        }
        for (const url of [
          `/api/v1/sessions/${stack.node.prefix}-${randomUUID()}/recording/file.wav`,
          `/api/v1/sessions/${session}/recording/${randomUUID()}.wav`,
          `/api/v1/sessions/not-a-session/recording/file.wav`,
        ]) {
          const res = await get(url);
          expect(res.statusCode, url).toBe(404);
          expect(res.rawPayload.length, url).toBe(0);
        }
      });

      it.runIf(mode === 'file')(
        'FreeSWITCH writes at FS_RECORDINGS_DIR; a recording it ends itself is completed too',
        async () => {
          const esl = await EslClient.connect(stack.sim.eslPort);
          try {
            const { session } = await answeredCall(stack, tenant, did);
            const uuid = session.slice(6);
            await startRecording(session, 'rec-fs');
            const start = await esl.waitEvent('RECORD_START', uuid);
            expect(start['Record-File-Path']).toMatch(
              new RegExp(`^${fsDir}/${session}/[0-9a-f-]{36}\\.wav$`),
            );
            // Not by record/stop nor a hangup: FreeSWITCH stops it (an operator, a full disk...).
            expect(await esl.api(`uuid_record ${uuid} stop all`)).toBe('+OK Success\n');
            const completed = await eventOf(session, 'recording.completed', 'rec-fs');
            const wav = parseWav((await get(String(completed.recording_url))).rawPayload);
            expect(completed.duration).toBe(Math.round(wav.seconds * 1000) / 1000);
            // The session may record again.
            expect(await startRecording(session, 'rec-fs2')).toMatchObject({ success: true });
          } finally {
            esl.close();
          }
        },
      );

      it.runIf(mode === 'stream')('the receiver refuses a stream nobody announced', async () => {
        const ws = new WebSocket(`ws://127.0.0.1:${receiverPort}/record/x/${randomUUID()}`);
        const status = await new Promise<number>((resolve) => {
          ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
          ws.on('open', () => resolve(101));
          ws.on('error', () => undefined);
        });
        ws.terminate();
        expect(status).toBe(404);
      });
    });
  });
}

describe('retention (file mode)', () => {
  recordingStack('file');

  it('after the retention the URL answers 404 with no body, and the file and its metadata are gone', async () => {
    // A node that keeps recordings for about 1.8 s and sweeps every 100 ms.
    const { node, control } = await stack.startNode({
      RECORDING_RETENTION_HOURS: '0.0005',
      RECORDING_SWEEP_INTERVAL_MS: '100',
    });
    const { session } = await answeredCall(stack, tenant, did, { node, control });
    await startRecording(session, 'rec-r');
    expect((await command(session, 'record/stop')).status).toBe(202);
    const completed = await eventOf(session, 'recording.completed', 'rec-r');
    const stoppedAt = Date.now();
    const url = String(completed.recording_url);
    expect((await get(url)).statusCode).toBe(200);
    const id = /([0-9a-f-]{36})\.wav$/.exec(url)?.[1] ?? '';
    const file = join(dir, session, `${id}.wav`);
    await access(file);

    // Fetching does not extend it: expired 1.8 s after the stop, whatever was fetched.
    let res = await get(url);
    await expect
      .poll(async () => (res = await get(url)).statusCode, { timeout: 5000, interval: 100 })
      .toBe(404);
    expect(Date.now() - stoppedAt).toBeGreaterThanOrEqual(1700);
    expect(res.rawPayload.length).toBe(0);
    expect(res.headers.location).toBeUndefined();
    expect((await get(`/api/v1/sessions/${session}/recording/file.wav`)).statusCode).toBe(404);

    await expect.poll(() => exists(file), { timeout: 3000 }).toBe(false);
    expect(await stack.redis.exists(stack.keys.recording(session, id))).toBe(0);
    expect(await stack.redis.zscore(stack.keys.recordingExpiry(), `${session}/${id}`)).toBeNull();
  });
});

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}
