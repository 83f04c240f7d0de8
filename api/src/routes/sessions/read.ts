import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { getSession, listSessions } from '../../domain/sessions.js';
import { pageArgs } from '../conferences/paging.js';
import { common, errors } from '../conferences/schemas.js';
import {
  Session,
  SESSIONS_LIMIT,
  SessionList,
  SessionListQuery,
} from '../../domain/session-schemas.js';
import { SessionParams } from './schemas.js';

const FILTER_MESSAGES = {
  '/status': 'status must be active or ended',
  '/direction': 'direction must be inbound or outbound',
};

const sessionTags = { ...common, tags: ['sessions'] };

/** `GET /sessions` and `GET /sessions/{uuid}`: the app's own sessions, live and recently ended. */
const readRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '',
    {
      attachValidation: true,
      schema: {
        ...sessionTags,
        summary: 'List sessions',
        description:
          "The calling application's sessions, newest first: every active one, and ended ones " +
          'for as long as their record is kept (SESSION_GRACE_SEC of the media node, 300 s by ' +
          'default). Filters `status` and `direction`; a page at a time.',
        querystring: SessionListQuery,
        response: { 200: SessionList, ...errors },
      },
    },
    async (request) => {
      const { limit, cursor } = pageArgs(request, SESSIONS_LIMIT.max, FILTER_MESSAGES);
      const { status, direction } = request.query;
      return listSessions(app, request.app.app_id, {
        limit,
        ...(cursor === undefined ? {} : { cursor }),
        ...(status ? { status } : {}),
        ...(direction ? { direction } : {}),
      });
    },
  );

  app.get(
    '/:uuid',
    {
      schema: {
        ...sessionTags,
        summary: 'Get a session',
        description:
          '404 when unknown or expired (ended more than SESSION_GRACE_SEC ago); 403 when it ' +
          'belongs to another application.',
        params: SessionParams,
        response: { 200: Session, ...errors },
      },
    },
    async (request) => {
      const { uuid } = request.params;
      return getSession(app, request.app.app_id, uuid);
    },
  );
};

export default readRoutes;
