// Shutdown on real processes with what they depend on gone: one SIGTERM, Redis killed or
// FreeSWITCH frozen, and every process still exits within its deadlines.
import { freePorts } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callThroughGateway,
  GatewayProcess,
  healthy,
  RestartableRedis,
} from './process-helpers.js';

const SHUTDOWN_TIMEOUT_MS = 2000;
const DRAIN_TIMEOUT_SEC = 1;
/** The media node's wait for calls it hung up at the drain deadline (DRAIN_KILL_WAIT_MS). */
const DRAIN_KILL_WAIT_MS = 5000;
/** What a loaded machine may add to a deadline: a running process, not a start, is timed. */
const SLACK_MS = 2500;
const ADMIN_KEY = 'shutdown-faults-admin-key-0123456789';

let redis: RestartableRedis;
let ports: Record<
  | 'redis'
  | 'simEsl'
  | 'simHttp'
  | 'frozenEsl'
  | 'frozenHttp'
  | 'mediaA'
  | 'recordingA'
  | 'mediaB'
  | 'recordingB'
  | 'api'
  | 'dispatcher',
  number
>;
let sim: GatewayProcess;
/** mediaB's FreeSWITCH, which a test freezes. */
let frozen: GatewayProcess;
let mediaA: GatewayProcess;
let mediaB: GatewayProcess;
let api: GatewayProcess;
let dispatcher: GatewayProcess;

const simulator = (name: string, esl: number, http: number): GatewayProcess =>
  new GatewayProcess(name, 'media-node/simulator/src/main.ts', {
    SIM_ESL_PORT: String(esl),
    SIM_HTTP_PORT: String(http),
    SIM_SIP_PORT: '0',
  });

const mediaNode = (name: string, esl: number, metrics: number, recording: number): GatewayProcess =>
  new GatewayProcess(name, 'media-node/src/main.ts', {
    REDIS_URL: redis.url,
    NODE_NAME: name,
    FS_ESL_PORT: String(esl),
    METRICS_PORT: String(metrics),
    METRICS_HOST: '127.0.0.1',
    RECORDING_PORT: String(recording),
    RECORDING_HOST: '127.0.0.1',
    DRAIN_TIMEOUT_SEC: String(DRAIN_TIMEOUT_SEC),
    // Longer than the drain's kill wait: a frozen FreeSWITCH's unanswered hang-ups must not
    // stretch the drain past it.
    ESL_REQUEST_TIMEOUT_MS: '10000',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });

/** Sends one SIGTERM and resolves with how long the process took to exit. */
async function stopOnce(process: GatewayProcess): Promise<number> {
  const stopped = Date.now();
  process.kill('SIGTERM');
  await process.exited;
  return Date.now() - stopped;
}

beforeAll(async () => {
  ports = await freePorts(
    'redis',
    'simEsl',
    'simHttp',
    'frozenEsl',
    'frozenHttp',
    'mediaA',
    'recordingA',
    'mediaB',
    'recordingB',
    'api',
    'dispatcher',
  );
  redis = new RestartableRedis(ports.redis);
  await redis.start();
  sim = simulator('simulator', ports.simEsl, ports.simHttp);
  frozen = simulator('frozen-simulator', ports.frozenEsl, ports.frozenHttp);
  mediaA = mediaNode('media-faults-a', ports.simEsl, ports.mediaA, ports.recordingA);
  mediaB = mediaNode('media-faults-b', ports.frozenEsl, ports.mediaB, ports.recordingB);
  api = new GatewayProcess('api', 'api/src/server.ts', {
    REDIS_URL: redis.url,
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    ADMIN_API_KEY: ADMIN_KEY,
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  dispatcher = new GatewayProcess('dispatcher', 'api/src/dispatcher.ts', {
    REDIS_URL: redis.url,
    DISPATCHER_METRICS_PORT: String(ports.dispatcher),
    DISPATCHER_HOST: '127.0.0.1',
    SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS),
  });
  // Six processes starting at once under tsx: slow on a loaded machine (the full suite's).
  await Promise.all(
    [ports.mediaA, ports.mediaB, ports.api, ports.dispatcher].map((port) =>
      healthy(`http://127.0.0.1:${port}/health`, 90_000),
    ),
  );
}, 120_000);

afterAll(async () => {
  frozen?.kill('SIGCONT');
  await Promise.allSettled([sim, frozen, mediaA, mediaB, api, dispatcher].map((p) => p?.stop()));
  await redis?.close();
}, 30_000);

describe('shutdown with FreeSWITCH frozen', () => {
  it('a media node with a call up exits within its deadlines while its FreeSWITCH is stopped', async () => {
    // A call up on the node, so that draining has a call to hang up through FreeSWITCH.
    const did = '0730000001';
    const session = await callThroughGateway(
      { api: ports.api, simHttp: ports.frozenHttp, adminKey: ADMIN_KEY },
      'app_frozen',
      did,
    );
    expect(session).toMatch(/^[a-z0-9]{5}-/);

    frozen.kill('SIGSTOP');
    const took = await stopOnce(mediaB);
    frozen.kill('SIGCONT');
    // The documented bound: drain (DRAIN_TIMEOUT_SEC + the kill wait), then closing.
    const bound = DRAIN_TIMEOUT_SEC * 1000 + DRAIN_KILL_WAIT_MS + SHUTDOWN_TIMEOUT_MS;
    expect(took).toBeLessThan(bound + SLACK_MS);
    expect(mediaB.signal).toBeNull();
  });
});

describe('shutdown with Redis gone', () => {
  beforeAll(() => redis.kill());
  afterAll(() => redis.start());

  it('a media node stopped with one SIGTERM exits within its drain and shutdown deadlines', async () => {
    const took = await stopOnce(mediaA);
    expect(took).toBeLessThan(DRAIN_TIMEOUT_SEC * 1000 + SHUTDOWN_TIMEOUT_MS + SLACK_MS);
    expect(mediaA.signal).toBeNull();
  });

  it.each([
    ['api', () => api],
    ['dispatcher', () => dispatcher],
  ])('the %s stopped with one SIGTERM exits within SHUTDOWN_TIMEOUT_MS', async (_name, which) => {
    const process = which();
    const took = await stopOnce(process);
    expect(took).toBeLessThan(SHUTDOWN_TIMEOUT_MS + SLACK_MS);
    expect(process.signal).toBeNull();
  });
});
