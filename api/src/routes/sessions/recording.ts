import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  parseSessionId,
  recordingPath,
  readWavLayout,
  RecordingStore,
  WAV_HEAD_BYTES,
  WAV_HEADER_BYTES,
  wavDataBytes,
  wavHeader,
  type RecordingRecord,
} from '@voicegw/shared';
import { GatewayError } from '../../errors/catalogue.js';
import { ErrorBody } from '../../errors/schema.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { publicBaseUrl } from '../../config.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** How often the api's public base URL is announced again (a Redis restart loses it). */
const ANNOUNCE_MS = 60_000;

const SessionUuid = Type.String({ description: 'Session identifier' });
const Wav = {
  description: 'The recording as a mono 16-bit PCM WAV (in progress: what has arrived so far)',
  content: { 'audio/wav': { schema: { type: 'string', format: 'binary' } } },
};
const NotFound = Type.Null({
  description: 'No such recording, or it expired: no body. Treat it as expired and do not retry.',
});
const security = [{ appId: [], apiKey: [] }];
const responses = { 200: Wav, 403: ErrorBody, 404: NotFound, '4xx': ErrorBody, '5xx': ErrorBody };

/** Every "no such recording" answers the contract's expired-URL 404: no body, no redirect. */
const notFound = () => new GatewayError('RECORDING_NOT_FOUND');

/**
 * Recordings, read from RECORDINGS_DIR (the volume the media nodes or their FreeSWITCH write)
 * as their metadata in Redis describes them: `file.wav` is the session's latest recording (while
 * it runs, a valid WAV of what is on disk so far), `{recording_id}.wav` one recording, the
 * `recording_url` of its
 * recording.completed. From its expiry (retention counted from the stop) the answer is 404.
 */
const recordingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const store = new RecordingStore(app.redis, app.keys, app.scripts);
  announcePublicBaseUrl(app);

  app.get(
    '/:uuid/recording/file.wav',
    {
      schema: {
        tags: ['sessions'],
        summary: "The session's latest recording (in progress: the audio so far)",
        security,
        params: Type.Object({ uuid: SessionUuid }),
        response: responses,
      },
    },
    async (request, reply) => {
      const { uuid } = request.params;
      const rec = parseSessionId(uuid) ? await store.latest(uuid) : undefined;
      return serve(app, request, reply, uuid, rec);
    },
  );

  app.get(
    '/:uuid/recording/:recording_id.wav',
    {
      schema: {
        tags: ['sessions'],
        summary: 'One recording of the session (the recording_url of recording.completed)',
        security,
        params: Type.Object({
          uuid: SessionUuid,
          recording_id: Type.String({ description: 'Recording identifier' }),
        }),
        response: responses,
      },
    },
    async (request, reply) => {
      const { uuid, recording_id: id } = request.params;
      const known = parseSessionId(uuid) && UUID.test(id);
      const rec = known ? await store.get(uuid, id) : undefined;
      return serve(app, request, reply, uuid, rec);
    },
  );
};

async function serve(
  app: FastifyInstance,
  request: FastifyRequest,
  reply: FastifyReply,
  sessionId: string,
  rec: RecordingRecord | undefined,
): Promise<FastifyReply> {
  const appId = request.app.app_id;
  if (!rec) {
    // No recording to show: still 403 for another app's live session, as on every session route.
    const session = parseSessionId(sessionId) ? await app.sessions.get(sessionId) : undefined;
    if (session && session.app_id !== appId) throw new GatewayError('SESSION_FORBIDDEN');
    throw notFound();
  }
  if (rec.app_id !== appId) throw new GatewayError('SESSION_FORBIDDEN');
  if (rec.expires_at !== undefined && rec.expires_at <= Date.now()) throw notFound();
  if (!UUID.test(rec.recording_id)) throw notFound();

  const path = join(app.config.RECORDINGS_DIR, recordingPath(rec.session_id, rec.recording_id));
  let file: FileHandle;
  try {
    file = await open(path, 'r');
  } catch {
    throw notFound();
  }
  let body: { readonly header: Buffer; readonly offset: number; readonly bytes: number };
  try {
    body = await wavExtent(file, rec.sample_rate);
  } catch (err) {
    await file.close();
    throw err;
  }
  return reply
    .code(200)
    .header('content-type', 'audio/wav')
    .header('content-length', body.header.length + body.bytes)
    .header('cache-control', rec.status === 'completed' ? 'private' : 'no-store')
    .send(Readable.from(wavBody(file, body.header, body.offset, body.bytes)));
}

/**
 * What to serve of a recording file: a canonical header made for exactly the whole samples on
 * disk now, and where they are. Whoever writes the file (the node's receiver, which patches its
 * header as it goes, or FreeSWITCH, which writes the sizes only when it closes the file), a
 * recording in progress is served as a valid WAV of what has been written so far. A file whose
 * header is not written yet is an empty WAV.
 */
async function wavExtent(file: FileHandle, fallbackRate: number) {
  const { size } = await file.stat();
  const head = Buffer.alloc(Math.min(size, WAV_HEAD_BYTES));
  const { bytesRead } = await file.read(head, 0, head.length, 0);
  const layout = readWavLayout(head.subarray(0, bytesRead));
  if (!layout) return { header: wavHeader(0, fallbackRate), offset: WAV_HEADER_BYTES, bytes: 0 };
  const bytes = wavDataBytes(layout, size);
  return {
    header: wavHeader(bytes, layout.sampleRate, layout.channels),
    offset: layout.dataOffset,
    bytes,
  };
}

async function* wavBody(file: FileHandle, header: Buffer, offset: number, bytes: number) {
  try {
    yield header;
    if (bytes === 0) return;
    for await (const chunk of file.createReadStream({
      start: offset,
      end: offset + bytes - 1,
      autoClose: false,
    }))
      yield chunk as Buffer;
  } finally {
    await file.close();
  }
}

/**
 * The media nodes build recording_url from the api's public base URL, which they read from
 * Redis: the api announces its PUBLIC_BASE_URL there when ready, and again now and then.
 */
function announcePublicBaseUrl(app: FastifyInstance): void {
  const base = publicBaseUrl(app.config);
  const announce = () =>
    app.redis.set(app.keys.publicBaseUrl(), base).catch((err: unknown) => {
      app.log.warn({ err }, 'public base URL not announced');
    });
  let timer: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    await announce();
    timer = setInterval(() => void announce(), ANNOUNCE_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}

export default recordingRoutes;
