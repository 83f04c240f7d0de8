import { loadDispatcherConfig, startDispatcher } from '@voicegw/api';
import { serveUntilStopped } from './protocol.js';

/**
 * The real webhook dispatcher, started by startDispatcher exactly as `api/src/dispatcher.ts`
 * starts it, with production defaults (shards, buffers, connections per origin, in-flight limit).
 * The parent passes the Redis it started; webhooks may go to loopback (the bench's receiver).
 * It logs at `error` unless `BENCH_LOG_LEVEL` says otherwise. `BENCH_DISPATCHER_ENV`, a JSON
 * object of dispatcher variables, sets the bus under test and its settings (`--bus`).
 * The port reported is the dispatcher's /metrics and /health.
 */
const config = loadDispatcherConfig({
  REDIS_URL: process.env.BENCH_REDIS_URL,
  REDIS_PREFIX: process.env.BENCH_REDIS_PREFIX,
  LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'error',
  DISPATCHER_HOST: '127.0.0.1',
  DISPATCHER_METRICS_PORT: '0',
  ALLOW_LOCALHOST_WEBHOOKS: 'true',
  ...(JSON.parse(process.env.BENCH_DISPATCHER_ENV ?? '{}') as Record<string, string>),
});
const dispatcher = await startDispatcher(config);
serveUntilStopped(dispatcher.metricsPort, () => dispatcher.close());
