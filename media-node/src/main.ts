// Entrypoint: `tsx media-node/src/main.ts`. Configuration from the environment (config.ts).
import { ConfigError, createLogger, exitWhenClosed } from '@voicegw/shared';
import { loadMediaNodeConfig, type MediaNodeConfig } from './config.js';
import { DRAIN_KILL_WAIT_MS, startMediaNode } from './node.js';

/** Beyond the deadlines of drain and close, before the process exits regardless. */
const EXIT_MARGIN_MS = 5000;

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

// SIGTERM (Kubernetes preStop, docker stop) drains; SIGINT, or a signal while draining, closes
// at once; a signal while closing changes nothing (closing is bounded by SHUTDOWN_TIMEOUT_MS).
// A process-group signal (Ctrl-C under a launcher) arrives twice: neither may cut shutdown short.
let phase: 'running' | 'draining' | 'closing' = 'running';
const stop = (signal: NodeJS.Signals): void => {
  if (phase === 'closing') {
    log.info({ signal }, 'already stopping');
    return;
  }
  const drain = signal === 'SIGTERM' && phase === 'running';
  phase = drain ? 'draining' : 'closing';
  log.info({ signal, active: node.sessions.size }, drain ? 'draining' : 'stopping');
  const budgetMs =
    (drain ? config.DRAIN_TIMEOUT_SEC * 1000 + DRAIN_KILL_WAIT_MS : 0) +
    config.SHUTDOWN_TIMEOUT_MS +
    EXIT_MARGIN_MS;
  exitWhenClosed(drain ? node.drain() : node.close(), budgetMs, log);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
