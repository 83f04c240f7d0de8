import { defineScript } from '../script-spec.js';

/** recordingStopped-3.lua: Marks a recording stopped, its retention counted from now. */
export const recordingStopped = defineScript({
  name: 'recordingStopped',
  keys: ['recording', 'latest', 'expiry'],
  args: ['member', 'recordingId', 'expiresAt'],
  rest: 'fields',
});
