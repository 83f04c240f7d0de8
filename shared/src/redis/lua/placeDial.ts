import { defineScript } from '../script-spec.js';

/** placeDial-5.lua: Places an outbound call: allow-list, node re-check, session and originate command. */
export const placeDial = defineScript({
  name: 'placeDial',
  keys: ['callerIds', 'heartbeat', 'session', 'commandStream', 'liveSessions'],
  args: ['from', 'command', 'createdAt', 'sessionId'],
  rest: 'fields',
});
