import { defineScript } from '../script-spec.js';

/** recordingStarted-4.lua: Registers a recording that has just started. */
export const recordingStarted = defineScript({
  name: 'recordingStarted',
  keys: ['recording', 'latest', 'expiry', 'session'],
  args: ['member', 'recordingId', 'expiresAt'],
  rest: 'fields',
});
