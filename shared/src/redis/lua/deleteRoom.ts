import { defineScript } from '../script-spec.js';

/** deleteRoom-6.lua: Destroys a room, with its conference.destroyed and the host node's destroy command. */
export const deleteRoom = defineScript({
  name: 'deleteRoom',
  keys: ['room', 'roomMembers', 'roomNames', 'appRooms', 'commandStream', 'events'],
  args: ['appId', 'roomId', 'command', ['event', 4]],
  rest: 'members',
});
