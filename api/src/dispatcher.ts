import { closeOnSignals, createLogger } from '@voicegw/shared';
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

closeOnSignals(() => dispatcher.close(), config.SHUTDOWN_TIMEOUT_MS, logger);
