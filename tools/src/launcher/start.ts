import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { provisionOrExit } from '../provision.js';
import { spawnRedis, type SpawnedRedis } from '../redis-server.js';
import { startChild, type Child } from './children.js';
import { ConfigError, type RedisEndpoint } from '@voicegw/shared';
import {
  childEnv,
  generateAdminKey,
  givenRedis,
  loadLauncherConfig,
  type LauncherConfig,
} from './config.js';
import { launcherPorts, portTakenMessage, takenPorts } from './ports.js';

/**
 * `npm start`: the gateway on one machine. Spawns Redis unless given one (REDIS_URL, or
 * REDIS_SENTINELS), with AOF and its data under DATA_DIR, then the FreeSWITCH simulator (unless
 * FS_ESL_HOST names a real FreeSWITCH), a media node and the api, each a child with prefixed
 * logs; Ctrl-C stops all.
 */
let config: LauncherConfig;
let given: RedisEndpoint | undefined;
try {
  config = loadLauncherConfig();
  given = givenRedis(config);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  console.error(`voicegw: ${err.message}`);
  process.exit(1);
}
const adminKey = config.ADMIN_API_KEY ?? generateAdminKey();
// Without FS_ESL_HOST the media node drives the bundled FreeSWITCH simulator.
const simulated = config.FS_ESL_HOST === undefined;

// A port another process holds is said up front, with the variable that moves it, before any
// process starts (otherwise one child dies with a stack trace and takes the gateway down).
const taken = await takenPorts(launcherPorts(config, simulated));
if (taken.length > 0) {
  for (const port of taken) console.error(`voicegw: ${portTakenMessage(port)}`);
  process.exit(1);
}

// A fresh machine gets redis-server here (apt on Debian/Ubuntu as root), unless given a Redis.
provisionOrExit({ externalRedis: given !== undefined });
let redis: SpawnedRedis | undefined;
if (!given) {
  const dir = resolve(config.DATA_DIR, 'redis');
  mkdirSync(dir, { recursive: true });
  redis = await spawnRedis({ appendOnly: true, dir, detached: true, tethered: true });
}
const redisShown = !given
  ? (redis?.url ?? '')
  : given.kind === 'url'
    ? given.url
    : `primary ${given.name} through Sentinel ${given.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;

// Recording: files under DATA_DIR that the api serves, written by the simulator (FreeSWITCH) in
// file mode, or by the media node's receiver on this machine in stream mode.
const recording = {
  RECORDING_MODE: config.RECORDING_MODE,
  RECORDING_SERVICE_URL:
    config.RECORDING_SERVICE_URL ?? `ws://127.0.0.1:${config.RECORDING_PORT}/record`,
  RECORDINGS_DIR: resolve(config.DATA_DIR, 'recordings'),
};

const common = {
  // A given Redis reaches the children through the environment they inherit (childEnv).
  ...(redis ? { REDIS_URL: redis.url } : {}),
  ...recording,
  LOG_PRETTY: 'true',
  ALLOW_HTTP_WEBHOOKS: 'true',
  ALLOW_LOCALHOST_WEBHOOKS: 'true',
};

let stopping = false;
const children: Child[] = [];
const onExit = (name: string, code: number | null): void => {
  if (stopping) return;
  console.error(`${name} exited with code ${code ?? 'null'}; stopping the gateway`);
  void shutdown(1);
};

/**
 * Starts a process from the entry its package declares (`exports` in its package.json), never
 * from a path into another workspace. Resolved through the workspaces' links in node_modules:
 * shared declares no dependency on the api or the media node, which depend on it.
 */
const launch = (name: string, entry: string, env: Record<string, string>): void => {
  const script = fileURLToPath(import.meta.resolve(entry));
  children.push(startChild(name, script, childEnv({ ...common, ...env }), onExit, children.length));
};

const esl = simulated
  ? { host: '127.0.0.1', port: config.SIM_ESL_PORT, password: 'ClueCon' }
  : { host: config.FS_ESL_HOST ?? '', port: config.FS_ESL_PORT, password: config.FS_ESL_PASSWORD };
if (simulated) {
  launch('simulator', '@voicegw/simulator/main', {
    SIM_ESL_HOST: esl.host,
    SIM_ESL_PORT: String(esl.port),
    SIM_ESL_PASSWORD: esl.password,
    SIM_HTTP_PORT: String(config.SIM_HTTP_PORT),
    SIM_SIP_PORT: String(config.SIM_SIP_PORT),
  });
}
launch('media-node', '@voicegw/media-node/main', {
  NODE_NAME: 'media-1',
  FS_ESL_HOST: esl.host,
  FS_ESL_PORT: String(esl.port),
  FS_ESL_PASSWORD: esl.password,
  METRICS_PORT: String(config.MEDIA_METRICS_PORT),
  PLAYBACK_CACHE_DIR: resolve(config.DATA_DIR, 'media'),
  RECORDING_PORT: String(config.RECORDING_PORT),
  // Ctrl-C on a laptop should not wait minutes for calls to end.
  DRAIN_TIMEOUT_SEC: '3',
});
launch('api', '@voicegw/api/server', { PORT: String(config.PORT), ADMIN_API_KEY: adminKey });
launch('dispatcher', '@voicegw/api/dispatcher', {
  DISPATCHER_METRICS_PORT: String(config.DISPATCHER_METRICS_PORT),
  EVENT_BUS: config.EVENT_BUS,
  ...(config.KAFKA_BROKERS ? { KAFKA_BROKERS: config.KAFKA_BROKERS } : {}),
});

console.log(`
voicegw is starting (development defaults)
  API            http://127.0.0.1:${config.PORT}   (OpenAPI: /docs)
  Admin key      ${adminKey}${config.ADMIN_API_KEY ? '' : '   (generated; set ADMIN_API_KEY to choose one)'}
  Redis          ${redisShown}${redis ? `   (spawned, data in ${config.DATA_DIR}/redis)` : ''}
  FreeSWITCH     ${simulated ? `simulator: ESL 127.0.0.1:${esl.port}, control API http://127.0.0.1:${config.SIM_HTTP_PORT}/sim` : `${esl.host}:${esl.port}`}
  Media node     media-1 (metrics http://127.0.0.1:${config.MEDIA_METRICS_PORT}/metrics)
  Recordings     ${recording.RECORDINGS_DIR}   (${config.RECORDING_MODE === 'file' ? 'file mode' : `stream mode, receiver ${recording.RECORDING_SERVICE_URL}`})
  Dispatcher     event bus ${config.EVENT_BUS === 'kafka' ? `kafka (${config.KAFKA_BROKERS ?? ''})` : 'redis'}, metrics http://127.0.0.1:${config.DISPATCHER_METRICS_PORT}/metrics
  Webhooks       ALLOW_HTTP_WEBHOOKS=true ALLOW_LOCALHOST_WEBHOOKS=true (signed, see docs/webhooks.md)
Press Ctrl-C to stop.
`);

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  // Reverse start order: the api stops taking requests, the media node drains while FreeSWITCH
  // (or the simulator) is still there, and Redis goes last.
  for (const child of [...children].reverse()) await child.stop();
  await redis?.stop();
  process.exit(code);
}

// `npm start` runs this file in node itself (node --import tsx), not under the tsx CLI, which
// SIGKILLs its child ~60 ms after relaying a signal and would orphan the children mid-shutdown.
// Every signal lands here; shutdown() runs once, so a second Ctrl-C changes nothing.
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => void shutdown(0));
