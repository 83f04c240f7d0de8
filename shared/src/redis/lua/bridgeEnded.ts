import { defineScript } from '../script-spec.js';

/** bridgeEnded-3.lua: A party's one call.unbridged, its reason from the state found. */
export const bridgeEnded = defineScript({
  name: 'bridgeEnded',
  keys: ['session', 'peerSession', 'events'],
  args: [
    'peer',
    'selfEnded',
    'peerGone',
    ['unbridged', 4],
    ['hangup', 4],
    ['peerHangup', 4],
    ['error', 4],
  ],
});
