import { defineScript } from '../script-spec.js';

/** streamEnded-2.lua: Publishes a media stream's last event and frees the session for another. */
export const streamEnded = defineScript({
  name: 'streamEnded',
  keys: ['session', 'events'],
  args: ['streamId', ['event', 4], 'orphaned'],
});
