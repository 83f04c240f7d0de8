// Shutdown on real processes: bounded whatever Redis does, and a repeated signal (Ctrl-C under a
// launcher delivers two) neither kills a process mid-shutdown nor keeps it from finishing.
import { connect } from 'node:net';
import { freePorts } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayProcess, healthy, RestartableRedis } from './process-helpers.js';

const SHUTDOWN_TIMEOUT_MS = 2000;
let redis: RestartableRedis;
let ports: Record<
  'redis' | 'simEsl' | 'simHttp' | 'media' | 'recording' | 'api' | 'dispatcher',
  number
>;
let sim: GatewayProcess;
let media: GatewayProcess;
let api: GatewayProcess;
let dispatcher: GatewayProcess;

/** Whether something still listens on a loopback port. */
const listening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

beforeAll(async () => {
  ports = await freePorts('redis', 'simEsl', 'simHttp', 'media', 'recording', 'api', 'dispatcher');
  redis = new RestartableRedis(ports.redis);
  await redis.start();
  const common = { REDIS_URL: redis.url };
  sim = new GatewayProcess('simulator', 'media-node/simulator/src/main.ts', {
    SIM_ESL_PORT: String(ports.simEsl),
    SIM_HTTP_PORT: String(ports.simHttp),
    SIM_SIP_PORT: '0',
  });
  media = new GatewayProcess('media-node', 'media-node/src/main.ts', {
    ...common,
    NODE_NAME: 'media-shutdown',
    FS_ESL_PORT: String(ports.simEsl),
    METRICS_PORT: String(ports.media),
    METRICS_HOST: '127.0.0.1',
    RECORDING_PORT: String(ports.recording),
    RECORDING_HOST: '127.0.0.1',
    DRAIN_TIMEOUT_SEC: '1',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  api = new GatewayProcess('api', 'api/src/server.ts', {
    ...common,
    PORT: String(ports.api),
    HOST: '127.0.0.1',
  });
  dispatcher = new GatewayProcess('dispatcher', 'api/src/dispatcher.ts', {
    ...common,
    DISPATCHER_METRICS_PORT: String(ports.dispatcher),
    DISPATCHER_HOST: '127.0.0.1',
  });
  await Promise.all(
    [ports.media, ports.api, ports.dispatcher].map((port) =>
      healthy(`http://127.0.0.1:${port}/health`, 45_000),
    ),
  );
}, 60_000);

afterAll(async () => {
  await Promise.allSettled([sim, media, api, dispatcher].map((p) => p?.stop()));
  await redis?.close();
}, 30_000);

describe('shutdown', () => {
  it('a media node stopped with Redis gone exits within its deadlines and releases its ports', async () => {
    await redis.kill();
    const stopped = Date.now();
    media.kill('SIGTERM');
    // A second SIGTERM while draining must not hang it either.
    media.kill('SIGTERM');
    await media.exited;
    // Drain (1 s, no calls) and SHUTDOWN_TIMEOUT_MS bound it; the rest is process start-up slack.
    expect(Date.now() - stopped).toBeLessThan(1000 + SHUTDOWN_TIMEOUT_MS + 5000);
    expect(media.code).toBe(0);
    expect(await listening(ports.media)).toBe(false);
    expect(await listening(ports.recording)).toBe(false);
    await redis.start();
  });

  it.each([
    ['dispatcher', () => dispatcher, () => ports.dispatcher],
    ['api', () => api, () => ports.api],
  ])(
    'two SIGTERMs to the %s: it still shuts down cleanly, exit code 0',
    async (_name, which, port) => {
      const process = which();
      // Back on the Redis the first test restarted.
      await healthy(`http://127.0.0.1:${port()}/health`);
      process.kill('SIGTERM');
      process.kill('SIGTERM');
      await process.exited;
      expect({ code: process.code, signal: process.signal }).toEqual({ code: 0, signal: null });
    },
  );
});
