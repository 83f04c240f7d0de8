import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import appRoutes from './apps.js';
import deadLetterRoutes from './dead-letters.js';
import numberListRoutes from './number-lists.js';
import operationRoutes from './operations.js';
import webhookRetryRoutes from './webhook-retry.js';

/** Admin endpoints: every one requires X-Admin-API-Key. */
const adminRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.authenticateAdmin);
  await app.register(appRoutes);
  await app.register(numberListRoutes);
  await app.register(operationRoutes);
  await app.register(deadLetterRoutes);
  await app.register(webhookRetryRoutes);
};

export default adminRoutes;
