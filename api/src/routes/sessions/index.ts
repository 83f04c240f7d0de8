import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import commandRoutes from './commands.js';
import readRoutes from './read.js';
import recordingRoutes from './recording.js';

const sessionRoutes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(commandRoutes);
  await app.register(recordingRoutes);
  await app.register(readRoutes);
};

export default sessionRoutes;
