/*
 * The one place where the benchmark reaches into the api workspace. The api has no package entry
 * yet (api/package.json points "." at src/index.ts, which does not exist), so these modules are
 * imported by path, as the api's own tests do; once the api exports them from its entry this file
 * becomes `export { ... } from '@voicegw/api'`.
 */
/* eslint-disable no-restricted-imports */
export { buildApp } from '../../api/src/app.js';
export { loadApiConfig } from '../../api/src/config.js';
export { AppStore } from '../../api/src/domain/apps.js';
export { loadDispatcherConfig } from '../../api/src/webhooks/config.js';
export { startDispatcher } from '../../api/src/webhooks/start.js';
