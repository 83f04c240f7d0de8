import { defineScript } from '../script-spec.js';

/** createRoom-4.lua: Creates a room whose name is unique within its app, with its conference.created. */
export const createRoom = defineScript({
  name: 'createRoom',
  keys: ['roomNames', 'room', 'appRooms', 'events'],
  args: ['appId', 'name', 'roomId', 'node', ['event', 4]],
});
