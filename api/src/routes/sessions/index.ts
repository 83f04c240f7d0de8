import type { FastifyPluginAsync } from 'fastify';
import commandRoutes from './commands.js';
import recordingRoutes from './recording.js';

const sessionRoutes: FastifyPluginAsync = async (app) => {
  await app.register(commandRoutes);
  await app.register(recordingRoutes);
};

export default sessionRoutes;
