import { GatewayError } from '../../errors/catalogue.js';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { LaneEntry } from '../../webhooks/lanes.js';
import { retryLaneNow } from '../../webhooks/retry-now.js';
import { ADMIN_SECURITY, AppIdParams, ERROR_REPLIES } from './schemas.js';
import { withStore } from './store-errors.js';

const LaneHead = Type.Object({
  event_id: Type.String({ description: 'The event attempted now (its `webhook-id`)' }),
  event: Type.String(),
  attempts: Type.Integer({ minimum: 0, description: 'Attempts of the schedule made so far' }),
  last_status: Type.Union([Type.Integer(), Type.Null()], {
    description: 'HTTP status of the last attempt; null when none arrived or none was made',
  }),
  last_error: Type.String(),
  scheduled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description:
      'When the schedule has the next attempt: if the attempt made now fails it does not count, ' +
      'and the event waits for this time again. Null when that attempt was due already (the ' +
      'attempt made now is it, and counts)',
  }),
});

const RetryReply = Type.Object({
  success: Type.Literal(true),
  app_id: Type.String(),
  waiting: Type.Integer({
    minimum: 0,
    description: "Events in the app's retry lane, delivered in order once the head is",
  }),
  head: Type.Union([LaneHead, Type.Null()], { description: 'Null when nothing waits' }),
});

const presentHead = (head: LaneEntry, now: number) => {
  const scheduled = head.scheduled_at ?? head.next_at;
  return {
    event_id: head.event_id,
    event: head.event,
    attempts: head.attempts,
    last_status: head.last_status ?? null,
    last_error: head.last_error ?? '',
    scheduled_at: scheduled > now ? new Date(scheduled).toISOString() : null,
  };
};

/** `POST /admin/apps/{app_id}/webhooks/retry`: the app's waiting webhooks, attempted now. */
const webhookRetryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/apps/:app_id/webhooks/retry',
    {
      schema: {
        tags: ['admin'],
        summary: "Retry an application's waiting webhooks now",
        description:
          "For after a receiver is fixed: the event at the head of the app's retry lane is " +
          'attempted now instead of at its scheduled time (within LANE_POLL_INTERVAL_MS, by ' +
          'whichever dispatcher owns the app), then the events behind it, in order. An attempt ' +
          'made this way that fails does not use up the retry schedule. 202 when events wait; ' +
          '200 with `waiting: 0` when none do; 409 while the app has no webhook_url or is disabled.',
        security: ADMIN_SECURITY,
        params: AppIdParams,
        response: { 200: RetryReply, 202: RetryReply, ...ERROR_REPLIES },
      },
    },
    async (request, reply) => {
      const { app_id: appId } = request.params;
      const record = await withStore(app.redis, () => app.apps.get(appId));
      if (!record) throw new GatewayError('APP_NOT_FOUND', { body: { app_id: appId } });
      if (record.webhook_url === '') throw new GatewayError('WEBHOOKS_OFF');
      if (record.disabled) throw new GatewayError('APP_DISABLED');
      const retry = await withStore(app.redis, () =>
        retryLaneNow(app.redis, app.scripts, app.keys, appId),
      );
      if (retry.kind === 'nothing_waiting') {
        return { success: true as const, app_id: appId, waiting: 0, head: null };
      }
      return reply.code(202).send({
        success: true as const,
        app_id: appId,
        waiting: retry.waiting,
        head: presentHead(retry.head, Date.now()),
      });
    },
  );
};

export default webhookRetryRoutes;
