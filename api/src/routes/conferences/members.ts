import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { listMembers } from '../../domain/rooms.js';
import { pageArgs } from './paging.js';
import { PageQuery } from '../../domain/page-query.js';
import { MemberList } from '../../domain/room-schemas.js';
import { common, errors, MEMBERS_LIMIT, RoomParams } from './schemas.js';

/** The members of a room: its active sessions, in join order. */
const memberRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/:room_id/members',
    {
      attachValidation: true,
      schema: {
        ...common,
        summary: 'List the members of a conference room',
        description: 'A room that does not exist or belongs to another application is 404.',
        params: RoomParams,
        querystring: PageQuery(MEMBERS_LIMIT),
        response: { 200: MemberList, ...errors },
      },
    },
    async (request) => {
      const { room_id: roomId } = request.params;
      const { limit, cursor } = pageArgs(request, MEMBERS_LIMIT.max);
      return listMembers(app, request.app.app_id, roomId, limit, cursor);
    },
  );
};

export default memberRoutes;
