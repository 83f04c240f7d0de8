// Development tooling (package @voicegw/tools): what `npm start`, `npm test`, `.ci/run` and the
// benchmark need and no production process loads. The launcher is @voicegw/tools/launcher, the
// generated-file writers @voicegw/tools/generate.
export { spawnRedis, stopChild } from './redis-server.js';
export type { SpawnedRedis, SpawnRedisOptions } from './redis-server.js';
export { spawnSentinel } from './redis-sentinel.js';
export type { SpawnedSentinel, SpawnSentinelOptions } from './redis-sentinel.js';
export { freePort, freePorts } from './ports.js';
export {
  curlAvailable,
  curlMissingMessage,
  planRedisServer,
  provisionCurl,
  provisionOrExit,
  provisionRedisSentinel,
  provisionRedisServer,
  redisSentinelAvailable,
  redisSentinelMissingMessage,
  redisServerAvailable,
  RedisProvisioningError,
} from './provision.js';
export type {
  MachineFacts,
  PlatformFacts,
  RedisPlan,
  TestProgramOptions,
  TestProgramPlan,
} from './provision.js';
export { captureLogger } from './log-capture.js';
export type { LogLine } from './log-capture.js';
export { checkGenerated, generatedFileScript } from './generate/generated-file.js';
export type { CheckResult, GeneratedFile } from './generate/generated-file.js';
export { late, slot } from './fixture-slot.js';
export { importCycles, importGraph, sourceFiles } from './import-graph.js';
export type { ImportGraph } from './import-graph.js';
