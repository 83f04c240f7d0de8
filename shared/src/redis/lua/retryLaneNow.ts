import { defineScript } from '../script-spec.js';

/** retryLaneNow-2.lua: Makes the head of an app's retry lane due now, if it is still the head read. */
export const retryLaneNow = defineScript({
  name: 'retryLaneNow',
  keys: ['lane', 'lanesDue'],
  args: ['appId', 'now', 'head', 'dueHead'],
});
