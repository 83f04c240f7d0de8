import { defineScript } from '../script-spec.js';

/** answerCommand-2.lua: Publishes a command's result and acknowledges it, only while it is pending. */
export const answerCommand = defineScript({
  name: 'answerCommand',
  keys: ['commandStream', 'events'],
  args: ['group', 'entryId'],
  rest: 'events',
});
