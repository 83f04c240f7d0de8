import { DialBody } from '@voicegw/shared';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { dialState, placeDial } from '../../domain/dial.js';
import { ErrorBody } from '../../errors/schema.js';

const SessionUuid = Type.String({ description: 'Session identifier of the dialed call' });

const Placed = Type.Object(
  { session_uuid: SessionUuid, status: Type.Literal('dialing') },
  { description: 'The call is being originated; progress arrives as webhook events' },
);
const Status = Type.Object(
  {
    session_uuid: SessionUuid,
    status: Type.Union([
      Type.Literal('dialing'),
      Type.Literal('ringing'),
      Type.Literal('early_media'),
      Type.Literal('answered'),
      Type.Literal('ended'),
    ]),
    started_at: Type.String({ format: 'date-time', description: 'Dial creation time (UTC)' }),
  },
  { description: 'Dial status' },
);
const Params = Type.Object({ session_uuid: SessionUuid });
const security = [{ appId: [], apiKey: [] }];

/** `POST /dial` originates an outbound call; `GET /dial/{session_uuid}` reports its progress. */
const dialRoutes: FastifyPluginAsyncTypebox = async (app) => {
  // '' rather than '/': the route is exactly /api/v1/dial (one OpenAPI path, no trailing slash).
  app.post(
    '',
    {
      config: { body: 'required' },
      schema: {
        tags: ['dial'],
        summary: 'Originate an outbound call',
        description:
          'Numbers are in Israeli domestic format; `from` must be on the caller-ID allow-list ' +
          '(403, code `cid_not_allowed`). Without a media node with outbound capacity the ' +
          'answer is 503 with code `no_fs_capacity`: retry with backoff.',
        security,
        body: DialBody,
        response: { 202: Placed, '4xx': ErrorBody, '5xx': ErrorBody },
      },
    },
    async (request, reply) => {
      const placed = await placeDial(app, request.app.app_id, request.body);
      return reply.code(202).send(placed);
    },
  );

  app.get(
    '/:session_uuid',
    {
      schema: {
        tags: ['dial'],
        summary: 'Dial status',
        description: '404 when the session is unknown, not a dial, or owned by another app.',
        security,
        params: Params,
        response: { 200: Status, '4xx': ErrorBody, '5xx': ErrorBody },
      },
    },
    async (request) => {
      const { session_uuid: id } = request.params;
      return dialState(app, request.app.app_id, id);
    },
  );
};

export default dialRoutes;
