// The api as a library (package entry @voicegw/api): other workspaces' tests build it in process.
export { buildApp } from './app.js';
export type { App, BuildAppOptions } from './app.js';
export { ApiEnv, loadApiConfig } from './config.js';
export { AppStore } from './domain/apps.js';
export type { ApiConfig } from './config.js';
export { DispatcherEnv, loadDispatcherConfig } from './webhooks/config.js';
export type { DispatcherConfig } from './webhooks/config.js';
export { startDispatcher } from './webhooks/start.js';
export type { Dispatcher, DispatcherOptions } from './webhooks/start.js';
export { ERROR_CODES, ERRORS, errorCode, GatewayError } from './errors/catalogue.js';
export type { ErrorBody, ErrorCode, ErrorName, GatewayErrorOptions } from './errors/catalogue.js';
