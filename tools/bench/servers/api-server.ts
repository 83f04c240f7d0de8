import { buildApp, loadApiConfig } from '@voicegw/api';
import { createLogger } from '@voicegw/shared';
import { answerHopsRequests, serveUntilStopped } from './protocol.js';

/**
 * The real api, built by buildApp exactly as `api/src/server.ts` builds it, on a free loopback
 * port. The parent passes the Redis it started; nothing else comes from the environment, so the
 * caller's own settings cannot skew a run. No logger unless `BENCH_LOG_LEVEL` asks for the
 * production one (JSON lines to stdout, which the parent discards): the baseline logs nothing.
 */
const config = loadApiConfig({
  REDIS_URL: process.env.BENCH_REDIS_URL,
  REDIS_PREFIX: process.env.BENCH_REDIS_PREFIX,
  HOST: '127.0.0.1',
  PORT: '0',
  // The media-streams scenario's echo application: ws:// on loopback.
  ALLOW_LOCALHOST_WEBHOOKS: process.env.BENCH_ALLOW_LOCALHOST_WEBHOOKS ?? 'false',
  ALLOW_HTTP_WEBHOOKS: process.env.BENCH_ALLOW_LOCALHOST_WEBHOOKS ?? 'false',
});
const level = process.env.BENCH_LOG_LEVEL;
const app = await buildApp({
  config,
  ...(level ? { logger: createLogger({ name: 'api', level }) } : {}),
});
await app.listen({ port: config.PORT, host: config.HOST });
const address = app.server.address();
if (address === null || typeof address === 'string') throw new Error('api has no TCP port');
answerHopsRequests();
serveUntilStopped(address.port, () => app.close());
