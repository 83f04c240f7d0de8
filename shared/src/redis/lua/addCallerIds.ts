import { defineScript } from '../script-spec.js';

/** addCallerIds-2.lua: Appends numbers to an app's caller-ID allow-list while the app exists. */
export const addCallerIds = defineScript({
  name: 'addCallerIds',
  keys: ['app', 'callerIds'],
  rest: 'numbers',
});
