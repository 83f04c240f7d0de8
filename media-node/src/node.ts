import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { join } from 'node:path';
import {
  createEventPublisher,
  createLogger,
  createRedis,
  COMMAND_GROUP,
  LuaScripts,
  NodeRegistry,
  OrphanSweeper,
  RedisKeys,
  settledWithin,
  startOperatorServer,
  untilWritten,
  type EventPublisher,
  type HealthReport,
  type Logger,
  type OperatorServer,
} from '@voicegw/shared';
import type { Redis } from 'ioredis';
import { IncomingBridges } from './bridge/incoming.js';
import { SipBridgeWatch } from './bridge/watch.js';
import { Heartbeat } from './cluster/heartbeat.js';
import { executeCommand } from './commands/index.js';
import type { MediaNodeConfig } from './config.js';
import { EslClient } from './esl/client.js';
import { checkDialTarget, type DialTarget } from './esl/dial-target.js';
import { NODE_SUBSCRIPTION } from './esl/event.js';
import { Rooms } from './conference/rooms.js';
import { EventRouter } from './esl/router.js';
import { MediaCache } from './media/cache.js';
import { NodeMetrics } from './metrics.js';
import { MediaStreamManager } from './media-stream/manager.js';
import { RecordingReceiver } from './recording/receiver.js';
import { Recorder } from './recording/recorder.js';
import { acceptInbound, inboundFromPark } from './session/inbound.js';
import { SessionRegistry, type NodeWithSessions } from './session/registry.js';
import { DidRoutes } from './session/did-routes.js';
import { resync } from './session/resync.js';
import { answerExpired } from './stream/command-failure.js';
import { CommandConsumer } from './stream/consumer.js';
import { countHangup } from './session/teardown.js';

export interface MediaNodeOptions {
  /** The process logger; without one the node logs at LOG_LEVEL to stdout. */
  readonly logger?: Logger;
}

export interface CloseOptions {
  /**
   * Delete the heartbeat at once (default). Either way the node's sessions stay in Redis: a
   * restarted node adopts them, or the orphan sweeper ends them after ORPHAN_TIMEOUT_MS.
   */
  readonly retire?: boolean;
}

export interface MediaNode {
  readonly prefix: string;
  readonly name: string;
  readonly metrics: NodeMetrics;
  readonly sessions: SessionRegistry;
  /** Its media streams (tests read the registry and the pacer). */
  readonly streams: MediaStreamManager;
  readonly esl: EslClient;
  /** Where FreeSWITCH's events go (channels, background jobs). */
  readonly router: EventRouter;
  /** SIGTERM: stop taking calls, let active ones finish up to DRAIN_TIMEOUT_SEC, then close. */
  drain(): Promise<void>;
  /** Stops at once (commands in execution finish), leaving calls to adoption or the sweeper. */
  close(options?: CloseOptions): Promise<void>;
  /** Runs one orphan sweep now (tests and operators). */
  sweep(): Promise<void>;
  /** Deletes recordings expired at `now` (default: now); resolves with how many. */
  sweepRecordings(now?: number): Promise<number>;
  /** Resolves when the resync after the latest (re)connect is done. */
  synced(): Promise<void>;
}

/** The least time a step of close() gets once the shutdown deadline has passed. */
const STEP_FLOOR_MS = 200;

class Runtime implements NodeWithSessions {
  draining = false;
  dialTarget: DialTarget = { usable: true };
  readonly router = new EventRouter();
  readonly sessions = new SessionRegistry();
  readonly didRoutes = new DidRoutes();
  readonly metrics = new NodeMetrics();
  readonly esl: EslClient;
  readonly media: MediaCache;
  readonly rooms: Rooms;
  /** The server FreeSWITCH streams to: stream-mode recordings, media streams. */
  readonly receiver: RecordingReceiver;
  readonly recordings: Recorder;
  readonly streams: MediaStreamManager;
  readonly bridges: SipBridgeWatch;
  /** Legs of other nodes' sessions bridged to ours. */
  readonly incomingBridges: IncomingBridges;
  readonly sessionGraceMs: number;

  constructor(
    readonly config: MediaNodeConfig,
    readonly prefix: string,
    readonly log: Logger,
    readonly redis: Redis,
    readonly keys: RedisKeys,
    readonly scripts: LuaScripts,
    readonly events: EventPublisher,
  ) {
    this.esl = new EslClient(
      {
        host: config.FS_ESL_HOST,
        port: config.FS_ESL_PORT,
        password: config.FS_ESL_PASSWORD,
        connectTimeoutMs: config.ESL_CONNECT_TIMEOUT_MS,
        requestTimeoutMs: config.ESL_REQUEST_TIMEOUT_MS,
        reconnectMinMs: config.ESL_RECONNECT_MIN_MS,
        reconnectMaxMs: config.ESL_RECONNECT_MAX_MS,
        idlePingMs: config.ESL_IDLE_PING_MS,
        subscription: NODE_SUBSCRIPTION,
      },
      log.child({ component: 'esl' }),
    );
    this.media = new MediaCache({
      dir: join(config.PLAYBACK_CACHE_DIR, prefix),
      fsDir: join(config.PLAYBACK_FS_DIR ?? config.PLAYBACK_CACHE_DIR, prefix),
      maxBytes: config.PLAYBACK_CACHE_MAX_BYTES,
      maxFileBytes: config.PLAYBACK_MAX_FILE_BYTES,
      fetchTimeoutMs: config.PLAYBACK_FETCH_TIMEOUT_MS,
      ttlMs: config.PLAYBACK_CACHE_TTL_SEC * 1000,
    });
    this.sessionGraceMs = config.SESSION_GRACE_SEC * 1000;
    this.rooms = new Rooms(this);
    this.receiver = new RecordingReceiver(
      { host: config.RECORDING_HOST, port: config.RECORDING_PORT },
      log.child({ component: 'recording-receiver' }),
    );
    this.recordings = new Recorder(this, this.receiver);
    this.streams = new MediaStreamManager(this, this.receiver);
    this.bridges = new SipBridgeWatch(this);
    this.incomingBridges = new IncomingBridges(this);
  }
}

/** Starts a media node: registers its prefix, connects to FreeSWITCH, consumes its commands. */
export async function startMediaNode(
  config: MediaNodeConfig,
  options: MediaNodeOptions = {},
): Promise<MediaNode> {
  const base =
    options.logger ??
    createLogger({ name: 'media-node', level: config.LOG_LEVEL, pretty: config.LOG_PRETTY });
  // A turn of the node carries the events and commands of many calls: they leave together.
  const redis = createRedis(config.redisEndpoint, {
    name: 'media-node',
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    flush: 'turn',
  });
  const blocking = createRedis(config.redisEndpoint, {
    name: 'media-node:commands',
    flush: 'turn',
  });
  for (const connection of [redis, blocking])
    connection.on('error', (err) => base.warn({ err }, 'redis connection error'));
  // What the node owes (events, command results, their acknowledgements) waits through a Redis
  // outage; only the shutdown deadline gives up on it.
  const giveUp = new AbortController();
  // Every write waiting for Redis listens for the give-up: many at once is an outage, not a leak.
  setMaxListeners(0, giveUp.signal);
  const retry = untilWritten({ log: base, signal: giveUp.signal });
  const keys = new RedisKeys(config.REDIS_PREFIX);
  const registry = new NodeRegistry(redis, keys);
  const prefix = await registry.claimPrefix(config.NODE_NAME);
  const log = base.child({ node: prefix });
  const node = new Runtime(
    config,
    prefix,
    log,
    redis,
    keys,
    new LuaScripts(redis, retry),
    createEventPublisher(config, redis, retry),
  );
  await node.media.init();
  const receiverPort = await node.receiver.listen();
  log.info({ port: receiverPort }, 'recording receiver listening');
  node.recordings.start();
  const heartbeat = new Heartbeat(node, registry);
  const sweeper = new OrphanSweeper(node, {
    intervalMs: config.SWEEP_INTERVAL_MS,
    heartbeatTtlMs: config.HEARTBEAT_TTL_MS,
    orphanTimeoutMs: config.ORPHAN_TIMEOUT_MS,
    self: prefix,
    onOrphanEnded: () => countHangup(node, 'failed', true),
  });
  const consumer = new CommandConsumer({
    redis,
    blocking,
    stream: keys.commandStream(prefix),
    group: COMMAND_GROUP,
    consumer: `${config.NODE_NAME}/${randomUUID().slice(0, 8)}`,
    blockMs: config.COMMAND_BLOCK_MS,
    batch: config.COMMAND_BATCH,
    concurrency: config.COMMAND_CONCURRENCY,
    claimIdleMs: config.COMMAND_CLAIM_IDLE_MS,
    claimIntervalMs: config.COMMAND_CLAIM_INTERVAL_MS,
    deadlineMs: config.COMMAND_DEADLINE_MS,
    log,
    execute: (message, entryId) => executeCommand(node, message, entryId),
    expire: (message, entryId) => answerExpired(node, message, entryId),
    retry,
  });

  node.router.unknownChannel = (event) => {
    // A bridge leg of a conference member on another node is not an app's call, nor is the leg
    // of another node's session bridged to one of ours.
    if (node.rooms.bridges.claim(event) || node.incomingBridges.claim(event)) return;
    const call = inboundFromPark(event);
    if (call) acceptInbound(node, call);
  };
  node.esl.on('event', (event) => node.router.route(event));
  node.sessions.onChange((size) => node.metrics.activeSessions.set(size));

  let connections = 0;
  let synced: Promise<void> = Promise.resolve();
  node.esl.on('connected', () => {
    if (connections++ > 0) node.metrics.eslReconnects.inc();
    node.metrics.eslConnected.set(1);
    const connectedAt = Date.now();
    synced = synced
      .then(() => resync(node, connectedAt))
      .catch((err: unknown) => log.error({ err }, 'resync failed'))
      .then(() => checkDialTargetOf(node))
      .then(() => heartbeat.beat());
    void heartbeat.beat();
  });
  node.esl.on('disconnected', () => {
    node.metrics.eslConnected.set(0);
    void heartbeat.beat();
  });
  node.esl.start();
  try {
    await node.esl.waitConnected(config.ESL_CONNECT_TIMEOUT_MS);
    await synced;
  } catch (err) {
    log.warn({ err }, 'starting without FreeSWITCH; still trying to connect');
  }

  await heartbeat.start();
  await consumer.start();
  sweeper.start();
  node.bridges.start();
  let metricsServer: OperatorServer | undefined;
  if (config.METRICS_PORT > 0) {
    metricsServer = await startOperatorServer(
      node.metrics.registry,
      () => health(node),
      { host: config.METRICS_HOST, port: config.METRICS_PORT },
      log,
    );
  }
  log.info({ node_name: config.NODE_NAME, capacity: config.CAPACITY }, 'media node ready');

  let closing: Promise<void> | undefined;
  const close = (closeOptions: CloseOptions = {}): Promise<void> =>
    (closing ??= (async () => {
      // Every step out has a deadline, whatever Redis or FreeSWITCH do: at SHUTDOWN_TIMEOUT_MS
      // writes still waiting for Redis are abandoned (their commands stay pending in the stream
      // for the next incarnation) and the steps left get a moment each.
      const deadline = Date.now() + config.SHUTDOWN_TIMEOUT_MS;
      const abandon = setTimeout(() => giveUp.abort(), config.SHUTDOWN_TIMEOUT_MS);
      const step = (what: string, work: Promise<unknown>) =>
        settledWithin(work, Math.max(STEP_FLOOR_MS, deadline - Date.now()), log, what);
      await step('stopping the command consumer', consumer.stop());
      await step('stopping the orphan sweeper', sweeper.stop());
      await step('stopping the bridge watch', node.bridges.stop());
      await step('closing media streams', node.streams.close());
      await step('closing recordings', node.recordings.close());
      await step('closing the recording receiver', node.receiver.close());
      await step('closing the metrics server', metricsServer?.close() ?? Promise.resolve());
      await step('retiring the heartbeat', heartbeat.stop(closeOptions.retire ?? true));
      await step('closing the event socket', node.esl.stop());
      giveUp.abort();
      clearTimeout(abandon);
      await step('closing Redis', Promise.allSettled([redis.quit(), blocking.quit()]));
      // quit() waits for replies a gone Redis never sends: the sockets go either way.
      redis.disconnect();
      blocking.disconnect();
      log.info('media node stopped');
    })());

  return {
    prefix,
    name: config.NODE_NAME,
    metrics: node.metrics,
    sessions: node.sessions,
    streams: node.streams,
    esl: node.esl,
    router: node.router,
    sweep: () => sweeper.sweep(),
    sweepRecordings: (now) => node.recordings.sweep(now),
    synced: () => synced,
    close,
    drain: async () => {
      node.draining = true;
      log.info({ active: node.sessions.size }, 'draining');
      await heartbeat.beat();
      await drained(node, config.DRAIN_TIMEOUT_SEC * 1000);
      await close();
    },
  };
}

/** How long the calls hung up at the drain deadline get to tear down. */
export const DRAIN_KILL_WAIT_MS = 5000;

/** Checks the dial target on each connection; an unusable one is an error to the operator. */
async function checkDialTargetOf(node: Runtime): Promise<void> {
  const template = node.config.DIAL_STRING_TEMPLATE;
  try {
    node.dialTarget = await checkDialTarget(node.esl, template);
  } catch (err) {
    node.log.warn({ err }, 'could not check the dial target');
    return;
  }
  if (!node.dialTarget.usable) {
    node.log.error(
      { dial_string_template: template, gateway: node.dialTarget.gateway },
      `dials cannot work: ${node.dialTarget.problem}`,
    );
  }
}

/**
 * GET /health: 503 without FreeSWITCH (readiness fails); 200 with an unusable dial target, which
 * still takes inbound calls and hosts rooms, but says why dials fail.
 */
function health(node: Runtime): HealthReport {
  if (!node.esl.connected) return { ok: false, body: { status: 'freeswitch_unreachable' } };
  const target = node.dialTarget;
  if (target.usable) return { ok: true, body: { status: 'ok' } };
  return { ok: true, body: { status: 'dial_target_unusable', problem: target.problem } };
}

/**
 * Waits for the sessions to end; at the deadline hangs up the rest and waits for teardown, the
 * hang-up requests included, up to DRAIN_KILL_WAIT_MS: a FreeSWITCH that does not answer (frozen)
 * would otherwise add ESL_REQUEST_TIMEOUT_MS to the drain.
 */
async function drained(node: Runtime, timeoutMs: number): Promise<void> {
  if (!(await emptied(node.sessions, timeoutMs))) {
    node.log.warn({ active: node.sessions.size }, 'drain deadline: hanging up the rest');
    void Promise.allSettled(
      node.sessions.all().map((s) => node.esl.api(`uuid_kill ${s.channel.uuid} MANAGER_REQUEST`)),
    );
    if (!(await emptied(node.sessions, DRAIN_KILL_WAIT_MS)))
      node.log.warn({ active: node.sessions.size }, 'drain: calls still up, closing anyway');
  }
}

function emptied(sessions: SessionRegistry, timeoutMs: number): Promise<boolean> {
  if (sessions.size === 0) return Promise.resolve(true);
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => finish(false), timeoutMs);
    const off = sessions.onChange((size) => {
      if (size === 0) finish(true);
    });
    function finish(empty: boolean): void {
      clearTimeout(timer);
      off();
      resolve(empty);
    }
  });
}
