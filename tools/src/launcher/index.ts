// The launcher's parts that tests reuse (package subpath @voicegw/tools/launcher); `npm start`
// runs start.ts itself.
export { startChild } from './children.js';
export type { Child } from './children.js';
export { childEnv, LauncherEnv, loadLauncherConfig } from './config.js';
export type { LauncherConfig } from './config.js';
