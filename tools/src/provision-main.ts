// `npx tsx tools/src/provision-main.ts` (.ci/run): redis-server for the test suite, which
// always spawns its own (so REDIS_URL does not matter here), curl for the quickstart test and
// redis-sentinel for the Sentinel failover test.
import { provisionCurl, provisionOrExit, provisionRedisSentinel } from './provision.js';

provisionOrExit();
for (const plan of [provisionCurl(), provisionRedisSentinel()]) {
  if (plan.kind === 'manual') console.error(plan.message);
}
