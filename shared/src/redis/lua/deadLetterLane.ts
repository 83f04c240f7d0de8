import { defineScript } from '../script-spec.js';

/** deadLetterLane-4.lua: Moves an app's whole retry lane to its dead letters. */
export const deadLetterLane = defineScript({
  name: 'deadLetterLane',
  keys: ['lane', 'laneIds', 'lanesDue', 'deadLetters'],
  args: ['appId', 'now', 'reason', 'deadLetterMax'],
});
