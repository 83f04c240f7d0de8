import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createRoom, deleteRoom, getRoom, listRooms } from '../../domain/rooms.js';
import { pageArgs } from './paging.js';
import { PageQuery } from '../../domain/page-query.js';
import { RoomList, RoomStatus } from '../../domain/room-schemas.js';
import {
  common,
  CreateBody,
  errors,
  LIST_LIMIT,
  NameTaken,
  RoomCreated,
  RoomDeleted,
  RoomParams,
} from './schemas.js';

/** Create, list, read and destroy conference rooms. */
const roomRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '',
    {
      config: { body: 'required' },
      schema: {
        ...common,
        summary: 'Create a conference room',
        description: 'The name is unique within the application. Emits `conference.created`.',
        body: CreateBody,
        response: { 201: RoomCreated, 409: NameTaken, ...errors },
      },
    },
    async (request, reply) => {
      const { name } = request.body;
      return reply.code(201).send(await createRoom(app, request.app.app_id, name));
    },
  );

  app.get(
    '',
    {
      attachValidation: true,
      schema: {
        ...common,
        summary: 'List conference rooms',
        description: "The calling application's rooms in creation order, a page at a time.",
        querystring: PageQuery(LIST_LIMIT),
        response: { 200: RoomList, ...errors },
      },
    },
    async (request) => {
      const { limit, cursor } = pageArgs(request, LIST_LIMIT.max);
      return listRooms(app, request.app.app_id, limit, cursor);
    },
  );

  app.get(
    '/:room_id',
    {
      schema: {
        ...common,
        summary: 'Get the status of a conference room',
        params: RoomParams,
        response: { 200: RoomStatus, ...errors },
      },
    },
    async (request) => {
      const { room_id: roomId } = request.params;
      return getRoom(app, request.app.app_id, roomId);
    },
  );

  app.delete(
    '/:room_id',
    {
      schema: {
        ...common,
        summary: 'Destroy a conference room',
        description:
          'Kicks all members, stops recording, tears down bridges and removes the room. ' +
          'Emits `conference.destroyed`.',
        params: RoomParams,
        response: { 200: RoomDeleted, ...errors },
      },
    },
    async (request) => {
      const { room_id: roomId } = request.params;
      return deleteRoom(app, request.app.app_id, roomId);
    },
  );
};

export default roomRoutes;
