import type { TestProject } from 'vitest/node';
import {
  provisionCurl,
  provisionRedisSentinel,
  provisionRedisServer,
  spawnRedis,
} from '@voicegw/tools';

/** One real redis-server for the whole run; each test file isolates itself with its own key prefix. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // A fresh machine: installs redis-server (apt, as root) or stops with the command to run.
  provisionRedisServer();
  // docs/quickstart.md's steps run curl, the failover test redis-sentinel: installed the same
  // way; without one, the test that needs it says why.
  provisionCurl();
  provisionRedisSentinel();
  const redis = await spawnRedis({ appendOnly: false });
  project.provide('redisUrl', redis.url);
  return () => redis.stop();
}
