import { defineScript } from '../script-spec.js';

/** endSession-6.lua: Ends a session exactly once cluster-wide, with its call.hangup. */
export const endSession = defineScript({
  name: 'endSession',
  keys: ['session', 'nodeSessions', 'events', 'liveSessions', 'endedSessions', 'endedExpiry'],
  args: [
    'sessionId',
    ['event', 4],
    'endedAt',
    'reason',
    'graceMs',
    'onlyIfExists',
    'hangupCause',
    'durationSeconds',
  ],
});
