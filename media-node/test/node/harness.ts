// End-to-end harness: the real api (in process, inject), a real Redis (the global setup's), the
// FreeSWITCH simulator over TCP and media nodes in process. Events are read from the Redis event
// stream, as the dispatcher reads them.
import { randomBytes, randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer } from 'node:http';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { buildApp, loadApiConfig, type App } from '@voicegw/api';
import { EVENT_FIELDS, RedisKeys, type Logger } from '@voicegw/shared';
import { ERRORS } from '@voicegw/api';
import { Redis } from 'ioredis';
import { inject } from 'vitest';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { makeToneWav } from '@voicegw/simulator';
import { loadMediaNodeConfig, startMediaNode, type MediaNode } from '../../src/index.js';

export const ADMIN_KEY = 'node-test-admin-key-0123456789';
const json = { 'content-type': 'application/json' };

/** A published event as the stream holds it: the contract payload plus the envelope. */
export type Ev = Record<string, unknown> & { event: string; session_uuid?: string };

export interface Tenant {
  readonly appId: string;
  readonly headers: Record<string, string>;
}

export interface TenantOptions {
  readonly dids?: string[];
  readonly cids?: string[];
  readonly webhookUrl?: string;
}

/** Reads the event stream continuously on its own connection; tests await what they expect. */
export class EventLog {
  readonly all: Ev[] = [];
  private waiters: Array<{ match: (e: Ev) => boolean; resolve: (e: Ev) => void }> = [];
  private lastId = '0-0';
  private stopped = false;
  private readonly loop: Promise<void>;

  constructor(
    private readonly redis: Redis,
    private readonly stream: string,
  ) {
    this.loop = this.read();
  }

  /** The first event (already seen or still to come) that matches, within `timeoutMs`. */
  waitFor(match: (e: Ev) => boolean, timeoutMs = 5000, what = 'event'): Promise<Ev> {
    const seen = this.all.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise<Ev>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (e: Ev) => {
          clearTimeout(timer);
          resolve(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Waits for event `name` of a session. */
  of(session: string, name: string, timeoutMs = 5000): Promise<Ev> {
    return this.waitFor(
      (e) => e.session_uuid === session && e.event === name,
      timeoutMs,
      `${name} for ${session}`,
    );
  }

  /** Waits for event `name` of a session's command `commandUid`. */
  ofCommand(session: string, name: string, commandUid: string, timeoutMs = 5000): Promise<Ev> {
    return this.waitFor(
      (e) => e.session_uuid === session && e.event === name && e.command_uid === commandUid,
      timeoutMs,
      `${name} of ${commandUid}`,
    );
  }

  /** Every event of a session so far, in stream order. */
  session(session: string): Ev[] {
    return this.all.filter((e) => e.session_uuid === session);
  }

  /** Whether a session has had event `name` so far (for command `commandUid`, when given). */
  has(session: string, name: string, commandUid?: string): boolean {
    return this.session(session).some(
      (e) => e.event === name && (commandUid === undefined || e.command_uid === commandUid),
    );
  }

  async close(): Promise<void> {
    this.stopped = true;
    this.redis.disconnect();
    await this.loop;
  }

  private async read(): Promise<void> {
    while (!this.stopped) {
      try {
        const reply = await this.redis.xread('BLOCK', 200, 'STREAMS', this.stream, this.lastId);
        for (const [, entries] of reply ?? []) {
          for (const [id, fields] of entries) {
            this.lastId = id;
            const body = fields[fields.indexOf(EVENT_FIELDS.body) + 1] ?? '{}';
            this.push(JSON.parse(body) as Ev);
          }
        }
      } catch {
        if (this.stopped) return;
      }
    }
  }

  private push(event: Ev): void {
    this.all.push(event);
    this.waiters = this.waiters.filter((w) => {
      if (!w.match(event)) return true;
      w.resolve(event);
      return false;
    });
  }
}

/** The simulator's HTTP control API. */
export class SimControl {
  constructor(readonly url: string) {}

  async call(to: string, from: string, appId?: string): Promise<string> {
    const res = await this.request('POST', '/sim/calls', {
      to,
      from,
      ...(appId ? { app_id: appId } : {}),
    });
    return ((await res.json()) as { uuid: string }).uuid;
  }

  /** Presses keys on the call (RFC 2833 from the far end), 80 ms apart. */
  async dtmf(uuid: string, digits: string): Promise<void> {
    await this.request('POST', `/sim/calls/${uuid}/dtmf`, { digits });
  }

  async hangup(uuid: string, cause?: string): Promise<void> {
    await this.request('POST', `/sim/calls/${uuid}/hangup`, cause ? { cause } : {});
  }

  async number(
    number: string,
    behavior: 'answer' | 'busy' | 'no_answer' | 'reject' | 'unavailable' | 'fail',
    ringMs = 100,
    earlyMedia = false,
  ): Promise<void> {
    await this.request('PUT', `/sim/numbers/${number}`, {
      behavior,
      ring_ms: ringMs,
      early_media: earlyMedia,
    });
  }

  /** The caller on the call says a tone; resolves with when it begins, ms since the call began. */
  async say(uuid: string, hz: number, ms: number): Promise<number> {
    const res = await this.request('POST', `/sim/calls/${uuid}/say`, { tone: { hz, ms } });
    return ((await res.json()) as { at_ms: number }).at_ms;
  }

  /** What the call heard from its start, 8 kHz samples (GET heard.wav). */
  async heard(uuid: string): Promise<Int16Array> {
    const res = await this.request('GET', `/sim/calls/${uuid}/heard.wav`);
    const wav = Buffer.from(await res.arrayBuffer());
    const samples = new Int16Array((wav.length - 44) >> 1);
    for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(44 + i * 2);
    return samples;
  }

  async calls(): Promise<Array<{ uuid: string; answer_state: string }>> {
    const res = await this.request('GET', '/sim/calls');
    return ((await res.json()) as { calls: Array<{ uuid: string; answer_state: string }> }).calls;
  }

  private async request(method: string, path: string, body?: unknown): Promise<Response> {
    const res = await fetch(this.url + path, {
      method,
      ...(body === undefined ? {} : { headers: json, body: JSON.stringify(body) }),
    });
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res;
  }
}

/** A TCP proxy in front of the simulator's event socket, to cut connections like a network. */
export interface Proxy {
  readonly port: number;
  /** Resets every open connection. */
  cut(): void;
  /** Cuts every connection and refuses new ones until `up()`. */
  down(): void;
  up(): void;
  /** Holds back what FreeSWITCH sends (replies, events) until `release()`; requests still pass. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<Proxy> {
  const sockets = new Set<Socket>();
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  let refusing = false;
  let held = false;
  const server: Server = createServer((client) => {
    if (refusing) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(targetPort, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream).pipe(client);
    const pair = { client, upstream };
    pairs.add(pair);
    client.on('close', () => pairs.delete(pair));
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const cut = (): void => {
    for (const s of sockets) s.resetAndDestroy();
  };
  return {
    port: (server.address() as AddressInfo).port,
    cut,
    down: () => {
      refusing = true;
      cut();
    },
    up: () => {
      refusing = false;
    },
    hold: () => {
      if (held) return;
      held = true;
      for (const { client, upstream } of pairs) upstream.unpipe(client);
    },
    release: () => {
      if (!held) return;
      held = false;
      for (const { client, upstream } of pairs) upstream.pipe(client);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface Stack {
  readonly api: App;
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly redisPrefix: string;
  readonly sim: Simulator;
  readonly control: SimControl;
  readonly node: MediaNode;
  /** The proxy between the node and the simulator, when started `viaProxy`. */
  readonly proxy: Proxy | undefined;
  readonly events: EventLog;
  /**
   * Starts another media node on this Redis, with a simulator of its own (`control`), or on the
   * stack's simulator when `shareSimulator` is set.
   */
  startNode(
    env?: Record<string, string>,
    shareSimulator?: boolean,
  ): Promise<{ node: MediaNode; control: SimControl }>;
  /** Creates an app through the admin API, with its DIDs, caller IDs and webhook URL. */
  tenant(options?: TenantOptions): Promise<Tenant>;
  /** POSTs a session command through the api and returns its answer, whatever it is. */
  command(
    tenant: Tenant,
    session: string,
    command: string,
    body?: unknown,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  /**
   * A command sent again while it is answered 429 `Command rate limited` (its cooldown group's
   * window on the session, 2 s at most), as a client would wait it out. For tests whose subject
   * is not the cooldown: each call site says so. Any other answer, an app's `Rate limit
   * exceeded` included, is returned at once. `sent` is told when each request is sent.
   */
  commandAfterCooldown(
    tenant: Tenant,
    session: string,
    command: string,
    body?: unknown,
    sent?: (at: number) => void,
  ): Promise<{ status: number; body: Record<string, unknown> }>;
  dial(tenant: Tenant, body: unknown): Promise<{ status: number; body: Record<string, unknown> }>;
  close(): Promise<void>;
}

const TEST_MEDIA_DIR = join(tmpdir(), 'voicegw-test-media');
/** The longest cooldown group (2 s) and a margin for a loaded host. */
const COOLDOWN_WAIT_MS = 3000;

/** Fast timings for tests; each file may override. */
export const TEST_NODE_ENV: Record<string, string> = {
  LOG_LEVEL: 'silent',
  HEARTBEAT_INTERVAL_MS: '200',
  HEARTBEAT_TTL_MS: '1000',
  COMMAND_BLOCK_MS: '200',
  ESL_RECONNECT_MIN_MS: '50',
  ESL_RECONNECT_MAX_MS: '500',
  METRICS_PORT: '0',
  // The receiver (recordings, media streams) always listens: any free port, as nodes share hosts.
  RECORDING_PORT: '0',
  PLAYBACK_CACHE_DIR: TEST_MEDIA_DIR,
};

/** A node that beats every `intervalMs` and is taken for dead `ttlMs` after its last beat. */
export const heartbeats = (intervalMs: number, ttlMs: number): Record<string, string> => ({
  HEARTBEAT_INTERVAL_MS: String(intervalMs),
  HEARTBEAT_TTL_MS: String(ttlMs),
});

/** A sweeper that looks every 100 ms and ends a dead node's sessions after `orphanTimeoutMs`. */
export const fastSweeper = (orphanTimeoutMs: number): Record<string, string> => ({
  SWEEP_INTERVAL_MS: '100',
  ORPHAN_TIMEOUT_MS: String(orphanTimeoutMs),
});

export interface StackOptions {
  /** Environment of every media node of the stack, over TEST_NODE_ENV. */
  readonly nodeEnv?: Record<string, string>;
  /** Connect the first node to its simulator through a TCP proxy the test can cut. */
  readonly viaProxy?: boolean;
  /** Environment of the api, over the harness's own (e.g. RECORDING_SERVICE_URL). */
  readonly apiEnv?: Record<string, string>;
  /** The first node's logger (e.g. `captureLogger()`'s, to read what it logged). */
  readonly logger?: Logger;
  /** A Redis of the test's own (one it restarts), instead of the run's. */
  readonly redisUrl?: string;
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const nodeEnv = options.nodeEnv ?? {};
  const redisUrl = options.redisUrl ?? inject('redisUrl');
  const redisPrefix = `mn${randomBytes(4).toString('hex')}`;
  const keys = new RedisKeys(redisPrefix);
  const api = await buildApp({
    config: loadApiConfig({
      REDIS_URL: redisUrl,
      REDIS_PREFIX: redisPrefix,
      ADMIN_API_KEY: ADMIN_KEY,
      ALLOW_HTTP_WEBHOOKS: 'true',
      ALLOW_LOCALHOST_WEBHOOKS: 'true',
      ...options.apiEnv,
    }),
  });
  await api.ready();
  // A test may restart its Redis: the connections wait for it quietly.
  const connect = () => new Redis(redisUrl).on('error', () => undefined);
  const redis = connect();
  const events = new EventLog(connect(), keys.events());
  const sims: Simulator[] = [];
  const nodes: MediaNode[] = [];

  const launch = async (
    port: number,
    env: Record<string, string>,
    logger?: Logger,
  ): Promise<MediaNode> => {
    const node = await startMediaNode(
      loadMediaNodeConfig({
        REDIS_URL: redisUrl,
        REDIS_PREFIX: redisPrefix,
        NODE_NAME: `node-${randomUUID()}`,
        FS_ESL_PORT: String(port),
        ...TEST_NODE_ENV,
        ...nodeEnv,
        ...env,
      }),
      logger ? { logger } : {},
    );
    nodes.push(node);
    return node;
  };

  // Each simulator has a SIP trunk, announced by its node, so that nodes bridge to each other.
  const simulator = () => startSimulator({ eslPort: 0, httpPort: 0, sipPort: 0 });
  const sipOf = (s: Simulator) => ({ FS_SIP_ADDRESS: `127.0.0.1:${s.sipPort ?? 0}` });
  const sim = await simulator();
  sims.push(sim);
  const control = new SimControl(sim.controlUrl);
  const proxy = options.viaProxy ? await startProxy(sim.eslPort) : undefined;
  const node = await launch(proxy?.port ?? sim.eslPort, sipOf(sim), options.logger);

  const startNode = async (env: Record<string, string> = {}, shareSimulator = false) => {
    if (shareSimulator)
      return { node: await launch(sim.eslPort, { ...sipOf(sim), ...env }), control };
    const own = await simulator();
    sims.push(own);
    const started = await launch(own.eslPort, { ...sipOf(own), ...env });
    return { node: started, control: new SimControl(own.controlUrl) };
  };

  const inject_ = async (method: 'POST' | 'PUT', url: string, headers: object, body?: unknown) => {
    const res = await api.inject({
      method,
      url,
      headers: { ...headers, ...(body === undefined ? {} : json) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
  };
  const admin = { 'x-admin-api-key': ADMIN_KEY };
  const command: Stack['command'] = (tenant, session, name, body) =>
    inject_('POST', `/api/v1/sessions/${session}/commands/${name}`, tenant.headers, body);

  return {
    api,
    redis,
    keys,
    redisPrefix,
    sim,
    control,
    node,
    proxy,
    events,
    startNode,
    async tenant(options = {}) {
      const appId = `app_${randomBytes(4).toString('hex')}`;
      const apiKey = `key-${randomBytes(12).toString('hex')}`;
      const created = await inject_('POST', `/admin/apps/${appId}`, admin, {
        api_key: apiKey,
        rate_limit: 10_000,
        ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}),
      });
      if (created.status !== 200) throw new Error(`app not created: ${JSON.stringify(created)}`);
      for (const kind of ['dids', 'cids'] as const) {
        const numbers = options[kind];
        if (!numbers?.length) continue;
        const put = await inject_('PUT', `/admin/apps/${appId}/${kind}`, admin, numbers);
        if (put.status !== 200) throw new Error(`${kind} not set: ${JSON.stringify(put)}`);
      }
      return { appId, headers: { 'x-app-id': appId, 'x-api-key': apiKey } };
    },
    command,
    async commandAfterCooldown(tenant, session, name, body, sent) {
      const deadline = Date.now() + COOLDOWN_WAIT_MS;
      for (;;) {
        const sentAt = Date.now();
        sent?.(sentAt);
        const res = await command(tenant, session, name, body);
        const cooling =
          res.status === 429 && res.body.error === ERRORS.COMMAND_RATE_LIMITED.message;
        if (!cooling || sentAt > deadline) return res;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    dial: (tenant, body) => inject_('POST', '/api/v1/dial', tenant.headers, body),
    async close() {
      await Promise.allSettled(nodes.map((n) => n.close()));
      // Each node caches audio in a directory of its own prefix: leave no litter in /tmp.
      await Promise.allSettled(
        nodes.map((n) => rm(join(TEST_MEDIA_DIR, n.prefix), { recursive: true, force: true })),
      );
      await proxy?.close();
      await Promise.allSettled(sims.map((s) => s.close()));
      await events.close();
      await api.close();
      redis.disconnect();
    },
  };
}

/** A random Israeli mobile number (digits only). */
export function mobile(): string {
  return `050${String(Math.floor(Math.random() * 10_000_000)).padStart(7, '0')}`;
}

/** An HTTP server of audio: `/tone<N>ms.wav` (N ms of tone), `/slow<N>ms.wav` (answers after N ms). */
export interface AudioServer {
  readonly base: string;
  /** Request paths in arrival order. */
  readonly hits: string[];
  close(): Promise<void>;
}

export async function startAudioServer(): Promise<AudioServer> {
  const hits: string[] = [];
  const server = createHttpServer((req, res) => {
    const path = req.url ?? '';
    hits.push(path);
    const m = /^\/(tone|slow)(\d+)ms(?:-\w+)?\.wav$/.exec(path);
    if (!m) {
      res.writeHead(404).end('not found');
      return;
    }
    const ms = Number(m[2]);
    const body = makeToneWav(m[1] === 'tone' ? ms : 200);
    const send = () =>
      res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length }).end(body);
    if (m[1] === 'slow') setTimeout(send, ms).unref();
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
