// The public surface of @voicegw/shared: contracts used by more than one process.
export { createLogger, REDACTED_PATHS } from './logger.js';
export type { Logger, LoggerSettings } from './logger.js';
export { spawnRedis, freePort, redisServerAvailable, stopChild } from './dev/redis-server.js';
export type { SpawnedRedis, SpawnRedisOptions } from './dev/redis-server.js';
