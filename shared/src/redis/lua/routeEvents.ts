import { defineScript } from '../script-spec.js';

/** routeEvents-1.lua: A batch of ingest events onto their shard streams, with the router's cursor. */
export const routeEvents = defineScript({
  name: 'routeEvents',
  keys: ['cursor'],
  args: ['from', 'to', 'appField', 'bodyField', 'sourceField'],
  rest: 'events',
});
