import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import conferenceRoutes from './conferences/index.js';
import dialRoutes from './dial/index.js';
import sessionRoutes from './sessions/index.js';

/** Application endpoints: authenticated by X-App-ID/X-API-Key, then rate limited. */
const v1Routes: FastifyPluginAsyncTypebox = async (app) => {
  app.addHook('onRequest', app.authenticateApp);
  app.addHook('onRequest', (request, _reply, done) => {
    // Session commands count the limits in their own script run.
    if (request.routeOptions.config.rateLimit === 'script') return done();
    app.rateLimiter.authenticated(request).then(() => done(), done);
  });
  await app.register(conferenceRoutes, { prefix: '/conferences' });
  await app.register(sessionRoutes, { prefix: '/sessions' });
  await app.register(dialRoutes, { prefix: '/dial' });
};

export default v1Routes;
