import { defineScript } from '../script-spec.js';

/** rateLimit-2.lua: Counts one request against two fixed windows. */
export const rateLimit = defineScript({
  name: 'rateLimit',
  keys: ['ipWindow', 'appWindow'],
  args: ['ipLimit', 'ipWindowMs', 'appLimit', 'appWindowMs'],
});
