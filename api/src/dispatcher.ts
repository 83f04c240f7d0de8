import { createLogger } from '@voicegw/shared';
import { loadDispatcherConfig } from './webhooks/config.js';
import { startDispatcher } from './webhooks/start.js';

/** The webhook dispatcher process: consume the event bus, deliver webhooks, close on a signal. */
const config = loadDispatcherConfig();
const logger = createLogger({
  name: 'dispatcher',
  level: config.LOG_LEVEL,
  pretty: config.LOG_PRETTY,
});
const dispatcher = await startDispatcher(config, { logger });

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    logger.info({ signal }, 'shutting down');
    dispatcher.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'unclean shutdown');
        process.exit(1);
      },
    );
  });
}
