import { defineScript } from '../script-spec.js';

/** recordingExpired-3.lua: Forgets an expired recording once its file is deleted. */
export const recordingExpired = defineScript({
  name: 'recordingExpired',
  keys: ['expiry', 'recording', 'latest'],
  args: ['member', 'recordingId', 'now'],
});
