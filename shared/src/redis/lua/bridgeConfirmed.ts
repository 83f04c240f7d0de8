import { defineScript } from '../script-spec.js';

/** bridgeConfirmed-2.lua: A party's call.bridged, once, while its fields name that peer. */
export const bridgeConfirmed = defineScript({
  name: 'bridgeConfirmed',
  keys: ['session', 'events'],
  args: ['peer', ['event', 4]],
});
