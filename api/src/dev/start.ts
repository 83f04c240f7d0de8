import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawnRedis, type SpawnedRedis } from '@voicegw/shared';
import { startChild, type Child } from './children.js';
import { childEnv, generateAdminKey, loadLauncherConfig } from './config.js';

/**
 * `npm start`: the gateway on one machine. Spawns Redis when REDIS_URL is unset (with AOF, data
 * under DATA_DIR), then each process of the gateway as a child with prefixed logs; Ctrl-C stops all.
 */
const config = loadLauncherConfig();
const adminKey = config.ADMIN_API_KEY ?? generateAdminKey();

let redis: SpawnedRedis | undefined;
if (!config.REDIS_URL) {
  const dir = resolve(config.DATA_DIR, 'redis');
  mkdirSync(dir, { recursive: true });
  redis = await spawnRedis({ appendOnly: true, dir });
}
const redisUrl = config.REDIS_URL ?? redis?.url ?? '';

const common = {
  REDIS_URL: redisUrl,
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

children.push(
  startChild(
    'api',
    'api/src/server.ts',
    childEnv({ ...common, PORT: String(config.PORT), ADMIN_API_KEY: adminKey }),
    onExit,
    children.length,
  ),
);

console.log(`
voicegw is starting (development defaults)
  API            http://127.0.0.1:${config.PORT}   (OpenAPI: /docs)
  Admin key      ${adminKey}${config.ADMIN_API_KEY ? '' : '   (generated; set ADMIN_API_KEY to choose one)'}
  Redis          ${redisUrl}${redis ? `   (spawned, data in ${config.DATA_DIR}/redis)` : ''}
  Webhooks       ALLOW_HTTP_WEBHOOKS=true ALLOW_LOCALHOST_WEBHOOKS=true
Press Ctrl-C to stop.
`);

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.all(children.map((c) => c.stop()));
  await redis?.stop();
  process.exit(code);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void shutdown(0));
