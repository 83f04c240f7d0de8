import { defineScript } from '../script-spec.js';

/** claimDids-3.lua: Routes DIDs to an app, unless one of them is routed to another app. */
export const claimDids = defineScript({
  name: 'claimDids',
  keys: ['app', 'dids', 'didRoutes'],
  args: ['appId'],
  rest: 'dids',
});
