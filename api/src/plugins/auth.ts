import { timingSafeEqual } from 'node:crypto';
import { GatewayError } from '@voicegw/shared';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { AppDirectory, secretDigest, type KnownApp } from '../domain/app-directory.js';
import { AppStore, type AppRecord } from '../domain/apps.js';

declare module 'fastify' {
  interface FastifyInstance {
    apps: AppStore;
    appDirectory: AppDirectory;
    /** onRequest hook of every /api/v1 route. */
    authenticateApp: (request: FastifyRequest) => Promise<void>;
    /** onRequest hook of every /admin route. */
    authenticateAdmin: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    /** The authenticated application (set by authenticateApp). */
    app: AppRecord;
  }
}

const APP_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** Constant-time comparison of digests, which also hides the length of the expected secret. */
const digestsEqual = (given: string, expected: Buffer): boolean =>
  timingSafeEqual(secretDigest(given), expected);

const header = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** Authentication exactly as the contract's Authentication section says. */
export default fp(
  async (app) => {
    const { config } = app;
    const store = new AppStore(app.redis, app.keys);
    const directory = new AppDirectory(store, app.keys, config.APP_CACHE_TTL_MS);
    await directory.start(config.REDIS_URL, (err) => app.log.warn({ err }, 'apps channel error'));
    app.addHook('onClose', () => directory.stop());
    app.decorate('apps', store);
    app.decorate('appDirectory', directory);
    app.decorateRequest('app', null as unknown as AppRecord);

    app.decorate('authenticateApp', async (request: FastifyRequest) => {
      try {
        request.app = await authenticate(request);
      } catch (error) {
        // Failed attempts count against the client IP's unauthenticated window (10/s by
        // default), so API keys cannot be guessed at the authenticated rate.
        if (error instanceof GatewayError && error.statusCode < 500) {
          await app.rateLimiter.unauthenticated(request);
        }
        throw error;
      }
    });

    async function authenticate(request: FastifyRequest): Promise<AppRecord> {
      const appId = header(request, 'x-app-id');
      if (appId === undefined || appId === '') throw new GatewayError('MISSING_APP_ID');
      if (!APP_ID.test(appId)) throw new GatewayError('INVALID_APP_ID');
      const key = header(request, 'x-api-key');
      if (key === undefined || key === '') throw new GatewayError('MISSING_API_KEY');
      let known: KnownApp | undefined;
      try {
        known = await directory.get(appId);
      } catch (cause) {
        throw new GatewayError('AUTH_BACKEND_FAILED', { cause });
      }
      if (!known || !digestsEqual(key, known.keyDigest)) throw new GatewayError('INVALID_API_KEY');
      return known.record;
    }

    const adminDigest =
      config.ADMIN_API_KEY === undefined ? undefined : secretDigest(config.ADMIN_API_KEY);
    app.decorate('authenticateAdmin', async (request: FastifyRequest) => {
      if (adminDigest === undefined) throw new GatewayError('ADMIN_NOT_CONFIGURED');
      const given = header(request, 'x-admin-api-key');
      if (given === undefined || given === '' || !digestsEqual(given, adminDigest)) {
        // The admin key is worth more than an app key: failures count against the same
        // unauthenticated window.
        await app.rateLimiter.unauthenticated(request);
        throw new GatewayError(given ? 'INVALID_ADMIN_KEY' : 'MISSING_ADMIN_KEY');
      }
    });
  },
  { name: 'auth', dependencies: ['infrastructure', 'rate-limit'] },
);
