import { defineScript } from '../script-spec.js';

/** conferenceMember-2.lua: Applies a confirmed conference membership change to the session and the room. */
export const conferenceMember = defineScript({
  name: 'conferenceMember',
  keys: ['session', 'roomMembers'],
  args: ['change', 'roomId', 'sessionId', 'memberId'],
});
