import { defineScript } from '../script-spec.js';

/** roomPlaybackDone-1.lua: Marks a room's playback stopped when its operation has finished. */
export const roomPlaybackDone = defineScript({
  name: 'roomPlaybackDone',
  keys: ['room'],
  args: ['operationId'],
});
