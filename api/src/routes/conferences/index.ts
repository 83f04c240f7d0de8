import type { FastifyPluginAsync } from 'fastify';
import memberRoutes from './members.js';
import playbackRoutes from './playback.js';
import roomRoutes from './rooms.js';

/** `/api/v1/conferences`: rooms, their members and room-level playback. */
const conferenceRoutes: FastifyPluginAsync = async (app) => {
  await app.register(roomRoutes);
  await app.register(memberRoutes);
  await app.register(playbackRoutes);
};

export default conferenceRoutes;
