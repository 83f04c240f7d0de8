// The caller's side of a call's audio: make the caller say something (a WAV or a tone, queued
// after what it is already saying, at real-time pace), fetch what the call heard as a WAV, and
// read when each say began. What a call heard stays readable KEEP_AFTER_HANGUP_MS after it ends.
import type {
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Logger } from '@voicegw/shared';
import { Type, type Static } from 'typebox';
import type { SimSwitch } from '../core/switch.js';
import { KEEP_MS, type CallAudio, type SaidSource } from '../media/call-audio.js';
import { samplesToMs } from '../media/clock.js';
import { voiceOf } from '../media/caller-voice.js';
import { streamOf } from '../media/audio-stream.js';

const UuidParams = Type.Object({ uuid: Type.String({ minLength: 1 }) });
/**
 * Exactly one of `url` and `tone`: one object rather than a union, as Fastify's Ajv removes
 * additional properties branch by branch (the first branch would strip `tone`).
 */
const SayBody = Type.Object(
  {
    url: Type.Optional(Type.String({ pattern: '^https?://\\S+$', maxLength: 2048 })),
    tone: Type.Optional(
      Type.Object(
        {
          hz: Type.Integer({ minimum: 1, maximum: 3999 }),
          ms: Type.Integer({ minimum: 1, maximum: KEEP_MS }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, minProperties: 1, maxProperties: 1 },
);

type Params = Static<typeof UuidParams>;

const NO_CALL = { error: 'call_not_found', message: 'No such call' } as const;

function sourceOf(body: Static<typeof SayBody>): SaidSource {
  return body.tone ? { tone: body.tone } : { url: body.url ?? '' };
}

/** The control app (its logger is the simulator's pino logger). */
type ControlApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  Logger
>;

export function registerAudioRoutes(app: ControlApp, sw: SimSwitch): void {
  app.post<{ Params: Params; Body: Static<typeof SayBody> }>(
    '/sim/calls/:uuid/say',
    { schema: { params: UuidParams, body: SayBody } },
    async (req, reply) => {
      const ch = sw.channels.get(req.params.uuid);
      if (!ch?.alive) return reply.code(404).send(NO_CALL);
      const source = sourceOf(req.body);
      const voice = await voiceOf(source, sw.media);
      if (!voice.ok) {
        return reply.code(400).send({ error: 'invalid_request', message: voice.reason });
      }
      const said = ch.audio.say(voice.pcm, source);
      if (!said) {
        const message = `The caller would be saying more than ${KEEP_MS / 60_000} minutes ahead`;
        return reply.code(400).send({ error: 'invalid_request', message });
      }
      return reply.code(202).send({ uuid: ch.uuid, ...said });
    },
  );

  app.get<{ Params: Params }>(
    '/sim/calls/:uuid/heard.wav',
    { schema: { params: UuidParams } },
    (req, reply) => {
      const audio = sw.audio.get(req.params.uuid);
      if (!audio) return reply.code(404).send(NO_CALL);
      const { wav, fromMs } = audio.heardWav();
      return reply
        .header('content-type', 'audio/wav')
        .header('x-heard-from-ms', String(fromMs))
        .send(wav);
    },
  );

  app.get<{ Params: Params }>(
    '/sim/calls/:uuid/audio',
    { schema: { params: UuidParams } },
    (req, reply) => {
      const audio = sw.audio.get(req.params.uuid);
      if (!audio) return reply.code(404).send(NO_CALL);
      const ch = sw.channels.get(req.params.uuid);
      const stream = ch ? streamOf(ch) : undefined;
      return { uuid: req.params.uuid, ...describe(audio), stream: stream?.status() ?? null };
    },
  );
}

function describe(audio: CallAudio) {
  return {
    began_at: audio.beganAt.toISOString(),
    elapsed_ms: samplesToMs(audio.end - audio.began),
    ended: audio.ended,
    said: audio.timeline(),
  };
}
