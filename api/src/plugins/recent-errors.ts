import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';

declare module 'fastify' {
  interface FastifyInstance {
    recentErrors: RecentErrors;
  }
}

export interface RecentError {
  readonly timestamp: string;
  readonly trace_id: string;
  readonly method: string;
  readonly path: string;
  readonly pattern: string;
  readonly status_code: number;
  readonly app_id: string;
  readonly error: string;
}

export interface RecentErrors {
  list(): Promise<RecentError[]>;
}

/** Strips what must never leave the server: URL credentials, key-like values, long detail. */
export function sanitizeErrorMessage(error: Error): string {
  return `${error.name}: ${error.message}`
    .replace(/\/\/[^/\s:@]+:[^/\s@]+@/g, '//[redacted]@')
    .replace(
      /((?:api[_-]?key|secret|password|token)["']?\s*[:=]\s*["']?)[^\s"',;]+/gi,
      '$1[redacted]',
    )
    .slice(0, 300);
}

/**
 * Every 5xx the api answers, kept in a capped Redis list shared by all replicas. Errors that
 * cannot be written (Redis is often the cause of a 5xx) are kept in process and listed too.
 */
export default fp(
  async (app) => {
    const key = app.keys.recentErrors();
    const max = app.config.RECENT_ERRORS_MAX;
    const unsaved: RecentError[] = [];

    app.onServerError = (request: FastifyRequest, status: number, error: Error) => {
      const entry: RecentError = {
        timestamp: new Date().toISOString(),
        trace_id: String(request.id),
        method: request.method,
        path: request.url.split('?')[0] ?? request.url,
        pattern: request.routeOptions.url ?? '',
        status_code: status,
        app_id: (request.app as { app_id?: string } | null)?.app_id ?? '',
        error: sanitizeErrorMessage(error),
      };
      app.redis
        .multi()
        .lpush(key, JSON.stringify(entry))
        .ltrim(key, 0, max - 1)
        .exec()
        .catch((err: unknown) => {
          request.log.warn({ err }, 'recent error kept in process only');
          unsaved.unshift(entry);
          unsaved.length = Math.min(unsaved.length, max);
        });
    };

    app.decorate('recentErrors', {
      async list() {
        let stored: RecentError[] = [];
        try {
          const raw = await app.redis.lrange(key, 0, max - 1);
          stored = raw.map((line) => JSON.parse(line) as RecentError);
        } catch (err) {
          app.log.warn({ err }, 'recent errors read from this process only');
        }
        return [...stored, ...unsaved]
          .sort((a, b) => b.timestamp.localeCompare(a.timestamp))
          .slice(0, max);
      },
    });
  },
  { name: 'recent-errors', dependencies: ['infrastructure', 'errors'] },
);
