// The api as a library (package entry @voicegw/api): other workspaces' tests build it in process.
export { buildApp } from './app.js';
export type { App, BuildAppOptions } from './app.js';
export { ApiEnv, loadApiConfig } from './config.js';
export type { ApiConfig } from './config.js';
