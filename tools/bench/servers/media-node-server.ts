import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadMediaNodeConfig, startMediaNode } from '@voicegw/media-node';
import { answerHopsRequests, answerMemoryRequests, serveUntilStopped } from './protocol.js';

/**
 * One media node, started as `media-node/src/main.ts` starts it, against the simulator the parent
 * started and the parent's Redis. Only the settings below come from the parent; the rest are the
 * production defaults. It serves no port the benchmark uses (its /metrics is off): it reports
 * its prefix instead.
 */
const cacheDir = await mkdtemp(join(tmpdir(), 'voicegw-bench-media-'));
const node = await startMediaNode(
  loadMediaNodeConfig({
    REDIS_URL: process.env.BENCH_REDIS_URL,
    REDIS_PREFIX: process.env.BENCH_REDIS_PREFIX,
    NODE_NAME: 'bench-media-node',
    FS_ESL_HOST: '127.0.0.1',
    FS_ESL_PORT: process.env.BENCH_ESL_PORT,
    FS_ESL_PASSWORD: process.env.BENCH_ESL_PASSWORD,
    CAPACITY: process.env.BENCH_CAPACITY,
    METRICS_PORT: '0',
    RECORDING_PORT: '0',
    PLAYBACK_CACHE_DIR: cacheDir,
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? process.env.BENCH_NODE_LOG_LEVEL ?? 'error',
    ALLOW_LOCALHOST_WEBHOOKS: process.env.BENCH_ALLOW_LOCALHOST_WEBHOOKS ?? 'false',
  }),
);
await node.synced();
answerMemoryRequests();
answerHopsRequests();
serveUntilStopped(
  0,
  async () => {
    await node.close();
    await rm(cacheDir, { recursive: true, force: true });
  },
  { prefix: node.prefix },
);
