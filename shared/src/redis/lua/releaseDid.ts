import { defineScript } from '../script-spec.js';

/** releaseDid-3.lua: Removes one DID from an app and from the global routes. */
export const releaseDid = defineScript({
  name: 'releaseDid',
  keys: ['app', 'dids', 'didRoutes'],
  args: ['appId', 'did'],
});
