import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import memberRoutes from './members.js';
import playbackRoutes from './playback.js';
import roomRoutes from './rooms.js';

/** `/api/v1/conferences`: rooms, their members and room-level playback. */
const conferenceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(roomRoutes);
  await app.register(memberRoutes);
  await app.register(playbackRoutes);
};

export default conferenceRoutes;
