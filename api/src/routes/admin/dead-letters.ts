import { GatewayError } from '../../errors/catalogue.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { DeadLetters } from '../../webhooks/dead-letters.js';
import type { DeadLetter } from '../../webhooks/lanes.js';
import { ADMIN_SECURITY, AppIdParams, ERROR_REPLIES } from './schemas.js';
import { withStore } from './store-errors.js';

const DeadLetterQuery = Type.Object({
  limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Page size' }),
  // Bounded so that any accepted value is a valid Redis index: past the end is an empty page.
  offset: Type.Integer({
    minimum: 0,
    maximum: Number.MAX_SAFE_INTEGER - 1000,
    default: 0,
    description: 'Dead letters to skip',
  }),
});

const DeadLetterItem = Type.Object({
  event_id: Type.String({ description: 'Also the `webhook-id` it is replayed with' }),
  event: Type.String(),
  reason: Type.Union([Type.Literal('failed'), Type.Literal('gone'), Type.Literal('app_disabled')], {
    description:
      '`failed`: every attempt of the retry schedule failed; `gone`: the receiver answered 410; ' +
      '`app_disabled`: the app was disabled',
  }),
  attempts: Type.Integer({ minimum: 0 }),
  last_status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last attempt; null when no response arrived',
  }),
  last_error: Type.String(),
  failed_at: Type.String({ format: 'date-time' }),
  payload: Type.Object({}, { additionalProperties: true, description: 'The webhook body' }),
});

const DeadLetterList = Type.Object({
  success: Type.Literal(true),
  app_id: Type.String(),
  total: Type.Integer({ description: 'Dead letters kept for the app (DEAD_LETTER_MAX at most)' }),
  dead_letters: Type.Array(DeadLetterItem, { description: 'Oldest first' }),
});

const ReplayBody = Type.Object(
  {
    event_ids: Type.Optional(
      Type.Array(Type.String({ maxLength: 64 }), {
        maxItems: 1000,
        description: 'Replay only these; all dead letters when omitted',
      }),
    ),
  },
  { additionalProperties: false },
);

const ReplayReply = Type.Object({
  success: Type.Literal(true),
  app_id: Type.String(),
  replayed: Type.Integer({ description: 'Events put back in delivery' }),
});

const present = (letter: DeadLetter) => ({
  event_id: letter.event_id,
  event: letter.event,
  reason: letter.reason,
  attempts: letter.attempts,
  last_status: letter.last_status ?? null,
  last_error: letter.last_error ?? '',
  failed_at: new Date(letter.failed_at).toISOString(),
  payload: JSON.parse(letter.body) as Record<string, unknown>,
});

/** `GET /admin/apps/{app_id}/dead-letters` and `POST .../dead-letters/replay`. */
const deadLetterRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const deadLetters = new DeadLetters(app.redis, app.scripts, app.keys);

  const existingApp = async (appId: string) => {
    const record = await withStore(app.redis, () => app.apps.get(appId));
    if (!record) throw new GatewayError('APP_NOT_FOUND', { body: { app_id: appId } });
    return record;
  };

  app.get(
    '/apps/:app_id/dead-letters',
    {
      schema: {
        tags: ['admin'],
        summary: "An application's dead-lettered webhook events",
        description:
          'Events whose delivery was given up: every attempt of the retry schedule failed, the ' +
          'receiver answered 410, or the app was disabled. Oldest first.',
        security: ADMIN_SECURITY,
        params: AppIdParams,
        querystring: DeadLetterQuery,
        response: { 200: DeadLetterList, ...ERROR_REPLIES },
      },
    },
    async (request) => {
      const { app_id: appId } = request.params;
      const { limit, offset } = request.query;
      await existingApp(appId);
      const page = await withStore(app.redis, () => deadLetters.list(appId, offset, limit));
      return {
        success: true as const,
        app_id: appId,
        total: page.total,
        dead_letters: page.letters.map(present),
      };
    },
  );

  app.post(
    '/apps/:app_id/dead-letters/replay',
    {
      config: { body: 'optional' },
      schema: {
        tags: ['admin'],
        summary: "Deliver an application's dead letters again",
        description:
          'Puts the dead letters (all, or those named) back in delivery, oldest first, after ' +
          "the events already waiting in the app's retry lane; each keeps its original " +
          '`webhook-id`. 409 while the app has no webhook_url or is disabled.',
        security: ADMIN_SECURITY,
        params: AppIdParams,
        body: ReplayBody,
        response: { 200: ReplayReply, ...ERROR_REPLIES },
      },
    },
    async (request) => {
      const { app_id: appId } = request.params;
      const { event_ids: eventIds } = request.body;
      const record = await existingApp(appId);
      if (record.webhook_url === '') throw new GatewayError('WEBHOOKS_OFF');
      if (record.disabled) throw new GatewayError('APP_DISABLED');
      const replayed = await withStore(app.redis, () => deadLetters.replay(appId, eventIds));
      return { success: true as const, app_id: appId, replayed };
    },
  );
};

export default deadLetterRoutes;
