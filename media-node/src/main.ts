// Entrypoint: `tsx media-node/src/main.ts`. Configuration from the environment (config.ts).
import { ConfigError, createLogger } from '@voicegw/shared';
import { loadMediaNodeConfig, type MediaNodeConfig } from './config.js';
import { startMediaNode } from './node.js';

let config: MediaNodeConfig;
try {
  config = loadMediaNodeConfig();
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(err.message);
  process.exit(1);
}

const log = createLogger({
  name: 'media-node',
  level: config.LOG_LEVEL,
  pretty: config.LOG_PRETTY,
});
const node = await startMediaNode(config, { logger: log });

// SIGTERM (Kubernetes preStop, docker stop) drains; a second signal or SIGINT stops at once.
let stopping = false;
const stop = (signal: string, graceful: boolean): void => {
  log.info({ signal }, graceful && !stopping ? 'draining' : 'stopping');
  const done = graceful && !stopping ? node.drain() : node.close();
  stopping = true;
  done.then(
    () => process.exit(0),
    (err: unknown) => {
      log.error({ err }, 'shutdown failed');
      process.exit(1);
    },
  );
};
process.on('SIGTERM', () => stop('SIGTERM', true));
process.on('SIGINT', () => stop('SIGINT', false));
