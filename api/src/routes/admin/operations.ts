import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { LiveNode } from '@voicegw/shared';
import { ADMIN_SECURITY, AdminHealth, ERROR_REPLIES, RecentErrorsReply } from './schemas.js';
import { withStore } from './store-errors.js';

/** `GET /admin/health` and `GET /admin/recent-errors`. */
const operationRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/health',
    {
      schema: {
        tags: ['admin'],
        summary: 'Gateway health: Redis reachability and live media nodes',
        description:
          'Always 200; `status` is `degraded` while Redis cannot be reached or a live media node ' +
          'is without its FreeSWITCH or without a usable dial target (`degraded_media_nodes`).',
        security: ADMIN_SECURITY,
        response: { 200: AdminHealth, ...ERROR_REPLIES },
      },
    },
    async () => {
      let nodes: LiveNode[] = [];
      let redisUp = true;
      try {
        await app.redis.ping();
        nodes = await app.nodes.live();
      } catch {
        redisUp = false;
      }
      const degraded = nodes.flatMap(({ name, prefix, freeswitch }) =>
        freeswitch === 'unreachable' || freeswitch === 'dial_target_unusable'
          ? [{ name, prefix, freeswitch }]
          : [],
      );
      return {
        status: redisUp && degraded.length === 0 ? ('ok' as const) : ('degraded' as const),
        timestamp: new Date().toISOString(),
        redis: redisUp ? ('up' as const) : ('down' as const),
        media_nodes: nodes.length,
        degraded_media_nodes: degraded,
      };
    },
  );

  app.get(
    '/recent-errors',
    {
      schema: {
        tags: ['admin'],
        summary: 'Recent server-side errors (5xx) of every api replica, newest first',
        security: ADMIN_SECURITY,
        response: { 200: RecentErrorsReply, ...ERROR_REPLIES },
      },
    },
    async () => {
      const errors = await withStore(app.redis, () => app.recentErrors.list());
      return { total: errors.length, errors };
    },
  );
};

export default operationRoutes;
