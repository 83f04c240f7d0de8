import type { FastifyPluginAsync } from 'fastify';

/** Admin endpoints: every one requires X-Admin-API-Key. */
const adminRoutes: FastifyPluginAsync = async (app) => {
  app.addHook('onRequest', app.authenticateAdmin);
};

export default adminRoutes;
