import { closeOnSignals, createLogger } from '@voicegw/shared';
import { buildApp } from './app.js';
import { loadApiConfig } from './config.js';

/** The api process: build the app from validated configuration, listen, close on a signal. */
const config = loadApiConfig();
const logger = createLogger({ name: 'api', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
const app = await buildApp({ config, logger });
await app.listen({ port: config.PORT, host: config.HOST });

closeOnSignals(() => app.close(), config.SHUTDOWN_TIMEOUT_MS, logger);
