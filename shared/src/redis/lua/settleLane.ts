import { defineScript } from '../script-spec.js';

/** settleLane-4.lua: Settles the head of an app's retry lane after an attempt. */
export const settleLane = defineScript({
  name: 'settleLane',
  keys: ['lane', 'laneIds', 'lanesDue', 'deadLetters'],
  args: ['appId', 'now', 'eventId', 'action', 'payload', 'deadLetterMax'],
});
