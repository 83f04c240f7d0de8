// Entrypoint: `tsx media-node/simulator/src/main.ts`. Config from the environment (see config.ts).
import { createLogger } from '@voicegw/shared';
import { loadSimConfig } from './config.js';
import { startSimulator } from './index.js';

const config = loadSimConfig();
const log = createLogger({ name: 'fs-sim', level: config.LOG_LEVEL });

const sim = await startSimulator({
  eslHost: config.SIM_ESL_HOST,
  eslPort: config.SIM_ESL_PORT,
  password: config.SIM_ESL_PASSWORD,
  httpHost: config.SIM_HTTP_HOST,
  httpPort: config.SIM_HTTP_PORT,
  sipHost: config.SIM_SIP_HOST,
  sipPort: config.SIM_SIP_PORT,
  hostname: config.SIM_HOSTNAME,
  ipv4: config.SIM_IPV4,
  gateways: config.SIM_GATEWAYS.split(',').filter(Boolean),
  logger: log,
});

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log.info({ signal }, 'shutting down');
    sim.close().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ err }, 'shutdown failed');
        process.exit(1);
      },
    );
  });
}
