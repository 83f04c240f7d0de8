import { defineScript } from '../script-spec.js';

/** bridgeRefused-2.lua: Clears both sides of a bridge or transfer that never connected. */
export const bridgeRefused = defineScript({
  name: 'bridgeRefused',
  keys: ['session', 'peerSession'],
  args: ['sessionId', 'peer'],
});
