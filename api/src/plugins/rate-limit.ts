import { lua } from '@voicegw/shared';
import { rateLimited } from '../domain/rate-limited.js';
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { effectiveRateLimit } from '../domain/apps.js';

declare module 'fastify' {
  interface FastifyInstance {
    rateLimiter: RateLimiter;
  }
  interface FastifyContextConfig {
    /** `script`: the route's own Lua script counts the request (the session command hot path). */
    rateLimit?: 'script';
  }
}

const SECOND = 1000;
const MINUTE = 60_000;

/**
 * The two authenticated windows of one request, as the KEYS and ARGV of a Lua script that
 * counts them (rateLimit, roomControl, sessionCommands name them alike).
 */
export interface RateWindows {
  readonly keys: { readonly ipWindow: string; readonly appWindow: string };
  readonly args: {
    readonly ipLimit: number;
    readonly ipWindowMs: number;
    readonly appLimit: number;
    readonly appWindowMs: number;
  };
}

export interface RateLimiter {
  windows(request: FastifyRequest): RateWindows;
  authenticated(request: FastifyRequest): Promise<void>;
  unauthenticated(request: FastifyRequest): Promise<void>;
}

/**
 * Cluster-wide fixed windows in Redis: per app and client IP per second (10,000 by default),
 * per app per minute (the app's `rate_limit`, 0 → 100), and per client IP per second for
 * requests that fail authentication (10 by default).
 */
export default fp(
  async (app) => {
    const { keys, scripts, config } = app;
    const windowOf = (ms: number): number => Math.floor(Date.now() / ms);

    const limiter: RateLimiter = {
      windows(request) {
        const appId = request.app.app_id;
        return {
          keys: {
            ipWindow: keys.rateWindow('ip', `${appId}:${request.ip}`, windowOf(SECOND)),
            appWindow: keys.rateWindow('app', appId, windowOf(MINUTE)),
          },
          args: {
            ipLimit: config.RATE_LIMIT_PER_SECOND,
            ipWindowMs: SECOND,
            appLimit: effectiveRateLimit(request.app),
            appWindowMs: MINUTE,
          },
        };
      },

      async authenticated(request) {
        const { keys: windowKeys, args } = limiter.windows(request);
        const wait = Number(await scripts.run(lua.rateLimit(windowKeys, args)));
        if (wait > 0) throw rateLimited('RATE_LIMITED', wait);
      },

      async unauthenticated(request) {
        const key = keys.rateWindow('anon', request.ip, windowOf(SECOND));
        // One window: the second (limit 0) is not counted.
        const args = {
          ipLimit: config.RATE_LIMIT_UNAUTHENTICATED_PER_SECOND,
          ipWindowMs: SECOND,
          appLimit: 0,
          appWindowMs: 0,
        };
        let wait = 0;
        try {
          wait = Number(await scripts.run(lua.rateLimit({ ipWindow: key, appWindow: key }, args)));
        } catch (err) {
          request.log.warn({ err }, 'unauthenticated rate limit not counted');
        }
        if (wait > 0) throw rateLimited('RATE_LIMITED', wait);
      },
    };

    app.decorate('rateLimiter', limiter);
  },
  { name: 'rate-limit', dependencies: ['infrastructure'] },
);
