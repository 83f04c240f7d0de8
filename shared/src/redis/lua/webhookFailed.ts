import { defineScript } from '../script-spec.js';

/** webhookFailed-1.lua: Records a failed webhook attempt; disables the app after failing long enough. */
export const webhookFailed = defineScript({
  name: 'webhookFailed',
  keys: ['app'],
  args: ['now', 'disableAfterMs'],
});
