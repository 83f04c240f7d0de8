// `npx tsx shared/src/dev/provision-main.ts` (.ci/run): redis-server for the test suite, which
// always spawns its own (so REDIS_URL does not matter here).
import { provisionOrExit } from './provision.js';

provisionOrExit();
