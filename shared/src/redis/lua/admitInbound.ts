import { defineScript } from '../script-spec.js';

/** admitInbound-5.lua: Admits an inbound call: not ended, DID route re-checked, session and its events. */
export const admitInbound = defineScript({
  name: 'admitInbound',
  keys: ['session', 'didRoutes', 'liveSessions', 'nodeSessions', 'events'],
  args: ['did', 'appId', 'routed', 'createdAt', 'sessionId', 'fieldCount'],
  rest: 'fieldsThenEvents',
});
