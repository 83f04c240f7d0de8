import { defineScript } from '../script-spec.js';

/** parkEvents-3.lua: Parks events in an app's retry lane, in bus order. */
export const parkEvents = defineScript({
  name: 'parkEvents',
  keys: ['lane', 'laneIds', 'lanesDue'],
  args: ['appId', 'now'],
  rest: 'entries',
});
