import type { FastifyPluginAsync } from 'fastify';
import commandRoutes from './commands.js';
import readRoutes from './read.js';
import recordingRoutes from './recording.js';

const sessionRoutes: FastifyPluginAsync = async (app) => {
  await app.register(commandRoutes);
  await app.register(recordingRoutes);
  await app.register(readRoutes);
};

export default sessionRoutes;
