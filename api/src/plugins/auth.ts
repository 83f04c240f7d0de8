import { hash, timingSafeEqual } from 'node:crypto';
import { GatewayError } from '../errors/catalogue.js';
import type { FastifyRequest, HookHandlerDoneFunction, onRequestHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { AppDirectory, type KnownApp } from '../domain/app-directory.js';
import { AppStore, type AppRecord } from '../domain/apps.js';

declare module 'fastify' {
  interface FastifyInstance {
    apps: AppStore;
    appDirectory: AppDirectory;
    /** onRequest hook of every /api/v1 route. */
    authenticateApp: onRequestHookHandler;
    /** onRequest hook of every /admin route. */
    authenticateAdmin: (request: FastifyRequest) => Promise<void>;
  }
  interface FastifyRequest {
    /** The authenticated application (set by authenticateApp). */
    app: AppRecord;
  }
}

const APP_ID = /^[a-zA-Z0-9_-]{1,64}$/;

const secretDigest = (secret: string): Buffer => hash('sha256', secret, 'buffer');

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
    await directory.start(config.redisEndpoint, (err) =>
      app.log.warn({ err }, 'apps channel error'),
    );
    app.addHook('onClose', () => directory.stop());
    app.decorate('apps', store);
    app.decorate('appDirectory', directory);
    app.decorateRequest('app', null as unknown as AppRecord);

    // A callback hook, not an async one: a cached app is checked without a promise.
    app.decorate('authenticateApp', (request, _reply, done) => {
      const appId = header(request, 'x-app-id');
      const key = header(request, 'x-api-key');
      if (appId === undefined || appId === '') return refuse(request, 'MISSING_APP_ID', done);
      if (!APP_ID.test(appId)) return refuse(request, 'INVALID_APP_ID', done);
      if (key === undefined || key === '') return refuse(request, 'MISSING_API_KEY', done);
      const cached = directory.fresh(appId);
      if (cached) return admit(request, cached.app, key, done);
      directory.get(appId).then(
        (known) => admit(request, known, key, done),
        (cause: unknown) => done(new GatewayError('AUTH_BACKEND_FAILED', { cause })),
      );
    });

    function admit(
      request: FastifyRequest,
      known: KnownApp | undefined,
      key: string,
      done: HookHandlerDoneFunction,
    ): void {
      if (!known?.apiKeys.has(key)) {
        return refuse(request, 'INVALID_API_KEY', done);
      }
      request.app = known.record;
      done();
    }

    /**
     * Failed attempts count against the client IP's unauthenticated window (10/s by default),
     * so API keys cannot be guessed at the authenticated rate; over it, the answer is 429.
     */
    function refuse(
      request: FastifyRequest,
      code: 'MISSING_APP_ID' | 'INVALID_APP_ID' | 'MISSING_API_KEY' | 'INVALID_API_KEY',
      done: HookHandlerDoneFunction,
    ): void {
      app.rateLimiter.unauthenticated(request).then(() => done(new GatewayError(code)), done);
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
