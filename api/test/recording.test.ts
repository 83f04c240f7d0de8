// GET /api/v1/sessions/{uuid}/recording/*.wav against recordings seeded as a media node leaves
// them: metadata through RecordingStore, files under RECORDINGS_DIR. The media node's own tests
// (media-node/test/node/recording.test.ts) record through the simulator end to end.
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LuaScripts, RecordingStore, recordingPath, sessionId, wavHeader } from '@voicegw/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedSession, useApi, useTenant, type TestTenant } from './helpers.js';

let store: RecordingStore;
let dir: string;
const prefix = 'rcd01';

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'voicegw-api-recordings-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));
const api = useApi(() => ({ RECORDINGS_DIR: dir, PUBLIC_BASE_URL: 'https://voice.example.com/' }));
const tenant = useTenant(api);
const other = useTenant(api);
beforeAll(() => {
  store = new RecordingStore(api.redis, api.keys, new LuaScripts(api.redis));
});

/** `ms` of a ramp at 8 kHz: distinct samples, so served bytes can be compared exactly. */
function samples(ms: number): Buffer {
  const data = Buffer.alloc(ms * 16);
  for (let i = 0; i < data.length / 2; i++) data.writeInt16LE((i * 37) % 30000, i * 2);
  return data;
}

interface Seeded {
  readonly session: string;
  readonly id: string;
  readonly data: Buffer;
}

/** A recording as the media node leaves it: started, and stopped unless `running`. */
async function seed(
  options: {
    session?: string;
    owner?: TestTenant;
    ms?: number;
    running?: boolean;
    /** What the file's own header says (a file caught while being written lags its data). */
    headerBytes?: number;
    extra?: Buffer;
  } = {},
): Promise<Seeded> {
  const session = options.session ?? sessionId(prefix, randomUUID());
  const id = randomUUID();
  const data = samples(options.ms ?? 250);
  const now = Date.now();
  await store.started(
    {
      recording_id: id,
      session_id: session,
      app_id: (options.owner ?? tenant).appId,
      node: prefix,
      command_uid: 'rec',
      sample_rate: 8000,
      started_at: now,
    },
    3_600_000,
  );
  await mkdir(join(dir, session), { recursive: true });
  const header = wavHeader(options.headerBytes ?? data.length, 8000);
  await writeFile(
    join(dir, recordingPath(session, id)),
    Buffer.concat([header, data, options.extra ?? Buffer.alloc(0)]),
  );
  if (!options.running) {
    await store.stopped(session, id, {
      stoppedAt: now,
      duration: data.length / 16000,
      expiresAt: now + 3_600_000,
    });
  }
  return { session, id, data };
}

const get = (url: string, headers: Record<string, string> = tenant.headers) =>
  api.app.inject({ method: 'GET', url, headers });
const byId = (s: Seeded) => `/api/v1/sessions/${s.session}/recording/${s.id}.wav`;
const latest = (session: string) => `/api/v1/sessions/${session}/recording/file.wav`;

describe('GET /api/v1/sessions/{uuid}/recording/*.wav', () => {
  it('serves a completed recording at its own URL as audio/wav, byte for byte', async () => {
    const rec = await seed({ ms: 400 });
    const res = await get(byId(rec));
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['content-length']).toBe(String(44 + rec.data.length));
    expect(res.rawPayload.equals(Buffer.concat([wavHeader(rec.data.length, 8000), rec.data]))).toBe(
      true,
    );
  });

  it("file.wav is the session's latest recording", async () => {
    const first = await seed({ ms: 100 });
    const second = await seed({ session: first.session, ms: 300 });
    const res = await get(latest(first.session));
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.subarray(44).equals(second.data)).toBe(true);
    // The earlier one is still at its own URL.
    expect((await get(byId(first))).rawPayload.subarray(44).equals(first.data)).toBe(true);
  });

  it('a recording in progress is served as a valid WAV of the whole samples written so far', async () => {
    // Caught between two writes: the file's header still says 0 bytes, a sample is half there.
    const rec = await seed({ running: true, ms: 200, headerBytes: 0, extra: Buffer.from([7]) });
    const res = await get(latest(rec.session));
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.rawPayload;
    expect(body.length).toBe(44 + rec.data.length);
    expect(body.readUInt32LE(4)).toBe(body.length - 8);
    expect(body.readUInt32LE(40)).toBe(body.length - 44);
    expect(body.subarray(44).equals(rec.data)).toBe(true);
  });

  it('an empty recording (nothing arrived yet) is a 44-byte WAV', async () => {
    const rec = await seed({ running: true, ms: 0 });
    const res = await get(latest(rec.session));
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(wavHeader(0, 8000))).toBe(true);
  });

  it("another app's recording answers 403", async () => {
    const rec = await seed({ owner: other });
    for (const url of [byId(rec), latest(rec.session)]) {
      const res = await get(url);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: 'Session belongs to a different application',
        code: 'session_forbidden',
      });
    }
  });

  it("another app's live session without a recording answers 403 too", async () => {
    const session = await seedSession(api, other, prefix);
    const res = await get(latest(session));
    expect(res.statusCode).toBe(403);
    expect(res.json()).toMatchObject({ error: 'Session belongs to a different application' });
  });

  it('an unknown session, recording or a session without one answers 404 with no body', async () => {
    const rec = await seed();
    const own = await seedSession(api, tenant, prefix);
    for (const url of [
      latest(sessionId(prefix, randomUUID())),
      `/api/v1/sessions/${rec.session}/recording/${randomUUID()}.wav`,
      `/api/v1/sessions/${rec.session}/recording/..%2F..%2Fetc.wav`,
      latest('not-a-session'),
      latest(own),
    ]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.rawPayload.length, url).toBe(0);
      expect(res.headers.location, url).toBeUndefined();
    }
  });

  it('after its expiry a recording answers 404 with no body, even before it is swept', async () => {
    const rec = await seed();
    // As the media node's stop would leave it, had the retention ended: the file and the hash
    // are still there (the sweeper has not run; here without a Redis TTL).
    await api.redis.hset(api.keys.recording(rec.session, rec.id), 'expires_at', Date.now() - 1);
    await api.redis.persist(api.keys.recording(rec.session, rec.id));
    for (const url of [byId(rec), latest(rec.session)]) {
      const res = await get(url);
      expect(res.statusCode, url).toBe(404);
      expect(res.rawPayload.length, url).toBe(0);
    }
  });

  it('a recording whose file is gone answers 404 with no body', async () => {
    const rec = await seed();
    await rm(join(dir, recordingPath(rec.session, rec.id)));
    const res = await get(byId(rec));
    expect(res.statusCode).toBe(404);
    expect(res.rawPayload.length).toBe(0);
  });

  it('needs the app credentials like every app route', async () => {
    const rec = await seed();
    const res = await get(byId(rec), { 'x-app-id': tenant.appId });
    expect(res.statusCode).toBe(401);
    expect(res.json()).toEqual({
      success: false,
      error: 'Missing API key',
      code: 'missing_api_key',
    });
  });

  it('announces PUBLIC_BASE_URL (without its trailing slash) for the media nodes', async () => {
    expect(await api.redis.get(api.keys.publicBaseUrl())).toBe('https://voice.example.com');
  });
});
