import type { FastifyPluginAsync } from 'fastify';
import commandRoutes from './commands.js';

const sessionRoutes: FastifyPluginAsync = async (app) => {
  await app.register(commandRoutes);
};

export default sessionRoutes;
