import { defineScript } from '../script-spec.js';

/** extendLeases-n.lua: One lease of a batch: extended while it still holds its holder's value. */
export const extendLeases = defineScript({
  name: 'extendLeases',
  keys: ['lease'],
  args: ['value', 'ttlMs'],
  batch: true,
});
