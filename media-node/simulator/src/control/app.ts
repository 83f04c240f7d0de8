// The simulator's HTTP control API: place inbound calls, press digits, hang up as the far end,
// make the caller speak and hear what the call heard (audio-routes.ts), and decide how dialled
// numbers answer. Schemas sit beside the routes that use them.
import fastify, { type FastifyError } from 'fastify';
import { Type, type Static } from 'typebox';
import type { Logger } from '@voicegw/shared';
import type { SimSwitch } from '../core/switch.js';
import { placeInboundCall } from '../core/inbound.js';
import { isKnownCause } from '../core/causes.js';
import { DEFAULT_BEHAVIOR } from '../core/numbers.js';
import { DTMF_SPACING_MS, MESSAGE_LATENCY_MS } from '../core/timing.js';
import { registerAudioRoutes } from './audio-routes.js';

const CallBody = Type.Object(
  {
    to: Type.String({ minLength: 1, maxLength: 64 }),
    from: Type.String({ minLength: 1, maxLength: 64 }),
    app_id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
const UuidParams = Type.Object({ uuid: Type.String({ minLength: 1 }) });
const DtmfBody = Type.Object(
  {
    digits: Type.String({ pattern: '^[0-9*#A-Da-d]+$', minLength: 1, maxLength: 64 }),
    duration_ms: Type.Optional(Type.Integer({ minimum: 40, maximum: 2000 })),
  },
  { additionalProperties: false },
);
const HangupBody = Type.Union([
  Type.Object(
    { cause: Type.Optional(Type.String({ minLength: 1 })) },
    { additionalProperties: false },
  ),
  Type.Null(),
]);
const NumberParams = Type.Object({ number: Type.String({ minLength: 1, maxLength: 64 }) });
const NumberBody = Type.Object(
  {
    behavior: Type.Union(
      ['answer', 'busy', 'no_answer', 'reject', 'unavailable', 'fail'].map((b) => Type.Literal(b)),
    ),
    ring_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    early_media: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

type NumberBodyT = Static<typeof NumberBody>;

export async function buildControlApp(sw: SimSwitch, log: Logger) {
  const app = fastify({ loggerInstance: log.child({ component: 'sim-control' }) });

  app.setErrorHandler((err: FastifyError, _req, reply) => {
    if (err.validation) {
      return reply.code(400).send({ error: 'invalid_request', message: err.message });
    }
    const status = err.statusCode && err.statusCode < 500 ? err.statusCode : 500;
    return reply
      .code(status)
      .send({ error: status === 500 ? 'internal_error' : 'bad_request', message: err.message });
  });
  app.setNotFoundHandler((req, reply) =>
    reply
      .code(404)
      .send({ error: 'not_found', message: `${req.method} ${req.url} is not a route` }),
  );

  app.get('/sim/health', () => ({ status: 'ok' }));

  app.post<{ Body: Static<typeof CallBody> }>(
    '/sim/calls',
    { schema: { body: CallBody } },
    (req, reply) => {
      const ch = placeInboundCall(sw, {
        to: req.body.to,
        from: req.body.from,
        appId: req.body.app_id,
      });
      return reply.code(201).send({ uuid: ch.uuid });
    },
  );

  app.get('/sim/calls', () => ({
    calls: [...sw.channels.values()]
      .filter((c) => c.alive)
      .map((c) => ({
        uuid: c.uuid,
        name: c.name,
        direction: c.profile.direction,
        from: c.profile.callerIdNumber,
        to: c.profile.destination,
        state: c.state,
        answer_state: c.answerState,
        app_id: c.vars.get('voicegw_app_id') ?? null,
        applications: c.executor.running(),
        created_at: new Date(c.times.created / 1000).toISOString(),
      })),
  }));

  app.post<{ Params: Static<typeof UuidParams>; Body: Static<typeof DtmfBody> }>(
    '/sim/calls/:uuid/dtmf',
    { schema: { params: UuidParams, body: DtmfBody } },
    (req, reply) => {
      const ch = sw.channels.get(req.params.uuid);
      if (!ch?.alive)
        return reply.code(404).send({ error: 'call_not_found', message: 'No such call' });
      const samples = (req.body.duration_ms ?? 250) * 8;
      [...req.body.digits].forEach((digit, i) => {
        setTimeout(
          () => ch.dtmf(digit.toUpperCase(), samples, 'RTP'),
          MESSAGE_LATENCY_MS + i * DTMF_SPACING_MS,
        );
      });
      return reply.code(202).send({ uuid: ch.uuid, digits: req.body.digits });
    },
  );

  app.post<{ Params: Static<typeof UuidParams>; Body: Static<typeof HangupBody> | undefined }>(
    '/sim/calls/:uuid/hangup',
    { schema: { params: UuidParams, body: HangupBody } },
    (req, reply) => {
      const ch = sw.channels.get(req.params.uuid);
      if (!ch?.alive)
        return reply.code(404).send({ error: 'call_not_found', message: 'No such call' });
      const cause = (req.body?.cause ?? 'NORMAL_CLEARING').toUpperCase();
      if (!isKnownCause(cause)) {
        return reply
          .code(400)
          .send({ error: 'invalid_request', message: `Unknown hangup cause ${cause}` });
      }
      ch.kill(cause);
      return reply.code(202).send({ uuid: ch.uuid, cause });
    },
  );

  registerAudioRoutes(app, sw);

  app.put<{ Params: Static<typeof NumberParams>; Body: NumberBodyT }>(
    '/sim/numbers/:number',
    { schema: { params: NumberParams, body: NumberBody } },
    (req) => {
      const b = req.body;
      const entry = {
        behavior: b.behavior,
        ringMs: b.ring_ms ?? DEFAULT_BEHAVIOR.ringMs,
        earlyMedia: b.early_media ?? false,
      };
      sw.numbers.set(req.params.number, entry);
      return {
        number: req.params.number,
        behavior: entry.behavior,
        ring_ms: entry.ringMs,
        early_media: entry.earlyMedia,
      };
    },
  );

  app.get('/sim/numbers', () => ({
    numbers: sw.numbers.list().map((n) => ({
      number: n.number,
      behavior: n.behavior,
      ring_ms: n.ringMs,
      early_media: n.earlyMedia,
    })),
  }));

  app.delete<{ Params: Static<typeof NumberParams> }>(
    '/sim/numbers/:number',
    { schema: { params: NumberParams } },
    (req, reply) => {
      if (!sw.numbers.delete(req.params.number)) {
        return reply
          .code(404)
          .send({ error: 'number_not_found', message: 'No behaviour set for this number' });
      }
      return reply.code(204).send();
    },
  );

  await app.ready();
  return app;
}
