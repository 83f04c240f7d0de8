import { loadDispatcherConfig, startDispatcher } from '@voicegw/api';
import { serveUntilStopped } from './protocol.js';

/**
 * The real webhook dispatcher, started by startDispatcher exactly as `api/src/dispatcher.ts`
 * starts it, with production defaults (shards, buffers, connections per origin, in-flight limit).
 * The parent passes the Redis it started; webhooks may go to loopback (the bench's receiver).
 * The port reported is the dispatcher's /metrics and /health.
 */
const config = loadDispatcherConfig({
  REDIS_URL: process.env.BENCH_REDIS_URL,
  REDIS_PREFIX: process.env.BENCH_REDIS_PREFIX,
  LOG_LEVEL: 'error',
  DISPATCHER_HOST: '127.0.0.1',
  DISPATCHER_METRICS_PORT: '0',
  ALLOW_LOCALHOST_WEBHOOKS: 'true',
});
const dispatcher = await startDispatcher(config);
serveUntilStopped(dispatcher.metricsPort, () => dispatcher.close());
