import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';

const HealthReply = Type.Object({ status: Type.String() });

/** Unauthenticated operational endpoints: liveness/readiness and Prometheus scraping. */
const healthRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['operations'],
        summary: 'Health check (not rate limited); 503 when Redis is unreachable',
        response: { 200: HealthReply, 503: HealthReply },
      },
    },
    async (_request, reply) => {
      try {
        await app.redis.ping();
        return { status: 'ok' };
      } catch {
        return reply.code(503).send({ status: 'unavailable' });
      }
    },
  );

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        summary: 'Prometheus metrics (no authentication)',
        hide: true,
      },
    },
    async (_request, reply) => {
      const body = await app.metrics.metrics();
      return reply.type(app.metrics.contentType).send(body);
    },
  );
};

export default healthRoutes;
