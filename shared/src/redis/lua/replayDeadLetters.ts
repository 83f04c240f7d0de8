import { defineScript } from '../script-spec.js';

/** replayDeadLetters-4.lua: Puts an app's dead letters back at the end of its retry lane. */
export const replayDeadLetters = defineScript({
  name: 'replayDeadLetters',
  keys: ['deadLetters', 'lane', 'laneIds', 'lanesDue'],
  args: ['appId', 'now', 'eventIds'],
});
