// `npx tsx tools/src/provision-main.ts` (.ci/run): redis-server for the test suite, which
// always spawns its own (so REDIS_URL does not matter here), and curl for the quickstart test.
import { provisionCurl, provisionOrExit } from './provision.js';

provisionOrExit();
const curl = provisionCurl();
if (curl.kind === 'manual') console.error(curl.message);
