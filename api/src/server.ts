import { createLogger } from '@voicegw/shared';
import { buildApp } from './app.js';
import { loadApiConfig } from './config.js';

/** The api process: build the app from validated configuration, listen, close on a signal. */
const config = loadApiConfig();
const logger = createLogger({ name: 'api', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
const app = await buildApp({ config, logger });
await app.listen({ port: config.PORT, host: config.HOST });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    app.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean shutdown');
        process.exit(1);
      },
    );
  });
}
