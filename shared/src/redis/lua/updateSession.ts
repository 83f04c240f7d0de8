import { defineScript } from '../script-spec.js';

/** updateSession-1.lua: Sets fields of a live session without resurrecting an ended one. */
export const updateSession = defineScript({
  name: 'updateSession',
  keys: ['session'],
  rest: 'fields',
});
