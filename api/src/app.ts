import { randomUUID } from 'node:crypto';
import type { Logger } from '@voicegw/shared';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { ApiConfig } from './config.js';
import auth from './plugins/auth.js';
import errors, { clientErrorHandler, frameworkErrors } from './plugins/errors.js';
import httpMetrics from './plugins/http-metrics.js';
import infrastructure from './plugins/infrastructure.js';
import jsonBody from './plugins/json-body.js';
import openapi from './plugins/openapi.js';
import rateLimit from './plugins/rate-limit.js';
import recentErrors from './plugins/recent-errors.js';
import validators from './plugins/validators.js';
import adminRoutes from './routes/admin/index.js';
import healthRoutes from './routes/health.js';
import v1Routes from './routes/v1.js';
// What the plugins add to the fastify instance (App) is declared in their modules. These imports
// keep those declarations in app.d.ts, which the other workspaces and the api's tests compile
// against; the value imports above vanish from it.
import './plugins/auth.js';
import './plugins/errors.js';
import './plugins/infrastructure.js';
import './plugins/json-body.js';
import './plugins/openapi.js';
import './plugins/rate-limit.js';
import './plugins/recent-errors.js';

export interface BuildAppOptions {
  readonly config: ApiConfig;
  /** The process logger; without one the app logs nothing (tests). */
  readonly logger?: Logger;
}

export type App = FastifyInstance;

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** Builds the api without listening: infrastructure first, then domain plugins, then routes. */
export async function buildApp(options: BuildAppOptions): Promise<App> {
  const { config } = options;
  const app = Fastify({
    ...(options.logger
      ? // pino.Logger is a FastifyBaseLogger; the cast keeps the instance type non-generic.
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion
        { loggerInstance: options.logger as FastifyBaseLogger }
      : { logger: false }),
    // A line per request and per answer only at debug: at info they were most of what the api
    // wrote, and each line a write; failures are logged by the errors plugin, and every request
    // is counted by route and status in /metrics.
    logController: new LogController({
      disableRequestLogging: !(options.logger?.isLevelEnabled('debug') ?? false),
    }),
    trustProxy: config.TRUST_PROXY,
    bodyLimit: 1024 * 1024,
    requestIdHeader: false,
    // Errors raised before routing (the router's, node's parser's) in the contract's shape too.
    frameworkErrors,
    clientErrorHandler,
    // Its 503 while closing has a body of its own; the errors plugin answers those instead.
    return503OnClosing: false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Set on arrival, so that every answer carries it, errors included. Hooks on the hot path take
  // `done` rather than being async: no promise per hook per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });

  await app.register(validators);
  await app.register(errors);
  await app.register(jsonBody);
  await app.register(infrastructure, { config });
  await app.register(rateLimit);
  await app.register(auth);
  await app.register(recentErrors);
  await app.register(httpMetrics);
  await app.register(openapi);

  await app.register(healthRoutes);
  await app.register(adminRoutes, { prefix: '/admin' });
  await app.register(v1Routes, { prefix: '/api/v1' });
  return app;
}
