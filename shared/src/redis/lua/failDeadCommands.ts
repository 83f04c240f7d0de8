import { defineScript } from '../script-spec.js';

/** failDeadCommands-3.lua: Answers, exactly once, the open commands of a dead node's command stream. */
export const failDeadCommands = defineScript({
  name: 'failDeadCommands',
  keys: ['commandStream', 'heartbeat', 'events'],
  args: ['group', 'consumer'],
  rest: 'entries',
});
