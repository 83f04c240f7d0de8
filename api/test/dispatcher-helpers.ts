import { randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createEventPublisher,
  RedisKeys,
  type EventEnvelope,
  type EventName,
  type EventPayload,
  type EventPublisher,
} from '@voicegw/shared';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, inject } from 'vitest';
import { slot } from '@voicegw/tools';
import { loadDispatcherConfig, type DispatcherConfig } from '../src/webhooks/config.js';
import { AppStore, type AppRecord } from '../src/domain/apps.js';
import { adminRequest, useApi, type TestApi } from './helpers.js';
import { startDispatcher, type Dispatcher, type DispatcherOptions } from '../src/webhooks/start.js';

/** One webhook request as the receiver saw it (recorded when it arrived). */
export interface Received {
  readonly appId: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly json: EventEnvelope & { readonly duration_ms?: number };
  readonly at: number;
}

/** What the receiver answers: a status and headers, per request. */
export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  /** Answer this much later. */
  readonly delayMs?: number;
}
export type Responder = (request: Received) => Answer;

/** A webhook's body with the fields a test reads by name. */
export type Hook = Record<string, unknown> & { event: string; event_id: string };

/**
 * A real HTTP webhook receiver on loopback: each app posts to `/hook/<app id>`. It records every
 * request, answers through a per-app responder (200 by default) and lets tests await requests.
 */
export class Receiver {
  readonly requests: Received[] = [];
  private readonly responders = new Map<string, Responder>();
  private waiters: { match: () => boolean; resolve: () => void }[] = [];
  private server: Server | undefined;
  port = 0;

  /** Listens on `port` (a fixed one to come back on after `close`), or a free one. */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const appId = decodeURIComponent((req.url ?? '').replace(/^\/hook\//, ''));
        const body = Buffer.concat(chunks).toString('utf8');
        const received: Received = {
          appId,
          headers: req.headers,
          body,
          json: JSON.parse(body) as Received['json'],
          at: Date.now(),
        };
        const answer: Answer = (this.responders.get(appId) ?? (() => ({ status: 200 })))(received);
        this.requests.push(received);
        this.notify();
        const reply = (): void => {
          if (!res.destroyed) res.writeHead(answer.status, answer.headers).end('ok');
        };
        if (answer.delayMs) setTimeout(reply, answer.delayMs);
        else reply();
      });
    });
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server?.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  url(appId: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}/hook/${encodeURIComponent(appId)}`;
  }

  respond(appId: string, responder: Responder): void {
    this.responders.set(appId, responder);
  }

  of(appId: string): Received[] {
    return this.requests.filter((r) => r.appId === appId);
  }

  /** One session's webhooks to an app, in the order they arrived, the first delivery of each. */
  hooksOf(appId: string, session: string): Hook[] {
    return firstDeliveries(this.of(appId))
      .map((r) => r.json as unknown as Hook)
      .filter((hook) => hook.session_uuid === session);
  }

  /** Resolves once `match()` holds (checked after every request). */
  until(match: () => boolean, timeoutMs = 10_000, what = 'webhooks'): Promise<void> {
    if (match()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        match,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private notify(): void {
    const ready = this.waiters.filter((w) => w.match());
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve();
  }
}

/** Environment of a test dispatcher: fast leases, fast polling, a short retry schedule. */
export function dispatcherEnv(prefix: string, env: Record<string, string> = {}): DispatcherConfig {
  return loadDispatcherConfig({
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    DISPATCHER_METRICS_PORT: '0',
    DISPATCHER_HOST: '127.0.0.1',
    ALLOW_LOCALHOST_WEBHOOKS: 'true',
    EVENT_SHARDS: '4',
    EVENT_LEASE_TTL_MS: '1500',
    LANE_POLL_INTERVAL_MS: '25',
    WEBHOOK_RETRY_SCHEDULE: '0,50ms,100ms,150ms',
    WEBHOOK_RETRY_JITTER: '0',
    WEBHOOK_TIMEOUT_MS: '2000',
    ...env,
  });
}

/** A gateway's Redis side as a dispatcher test needs it: one prefix, a publisher, an app store. */
export class TestGateway {
  readonly prefix = `d${randomBytes(4).toString('hex')}`;
  readonly keys = new RedisKeys(this.prefix);
  readonly redis = new Redis(inject('redisUrl'));
  readonly publisher: EventPublisher = createEventPublisher(
    { REDIS_PREFIX: this.prefix },
    this.redis,
  );
  readonly apps = new AppStore(this.redis, this.keys);
  private readonly dispatchers: Dispatcher[] = [];

  constructor() {
    this.redis.on('error', () => undefined);
  }

  async createApp(overrides: Partial<AppRecord> & { app_id: string }): Promise<AppRecord> {
    const record: AppRecord = {
      webhook_url: '',
      api_key: `key-${randomBytes(12).toString('hex')}`,
      rate_limit: 0,
      events: [],
      webhook_secret: `whsec_${randomBytes(24).toString('base64')}`,
      created_at: new Date().toISOString(),
      ...overrides,
    };
    await this.apps.save(record);
    return record;
  }

  /** Publishes a dtmf event carrying a sequence number in its digit field's neighbour. */
  publish<N extends EventName>(appId: string, payload: EventPayload<N>): Promise<EventEnvelope<N>> {
    return this.publisher.publish(appId, payload);
  }

  /** A numbered event: `dtmf` whose duration_ms is the sequence number. */
  publishSeq(appId: string, seq: number): Promise<EventEnvelope<'dtmf'>> {
    return publishSeq(this.publisher, appId, seq);
  }

  async dispatcher(
    env: Record<string, string> = {},
    options: DispatcherOptions = {},
  ): Promise<Dispatcher> {
    const dispatcher = await startDispatcher(dispatcherEnv(this.prefix, env), options);
    this.dispatchers.push(dispatcher);
    return dispatcher;
  }

  async close(): Promise<void> {
    await Promise.allSettled(this.dispatchers.map((d) => d.close()));
    this.redis.disconnect();
  }
}

/** The first arrival of each webhook-id (an event's id): retries left out. */
export function firstDeliveries(requests: readonly Received[]): Received[] {
  const seen = new Set<string>();
  return requests.filter((r) => {
    const id = String(r.headers['webhook-id']);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The sequence numbers an app's receiver got, first arrival of each webhook-id only. */
export function sequence(requests: readonly Received[]): number[] {
  return firstDeliveries(requests).map(
    (r) => (r.json as unknown as { duration_ms: number }).duration_ms,
  );
}

/** The body of GET /admin/apps/{app_id}/dead-letters. */
export interface DeadLetterList {
  readonly total: number;
  readonly dead_letters: readonly {
    readonly event_id: string;
    readonly reason: string;
    readonly attempts: number;
    readonly last_status: number | null;
    readonly last_error: string;
  }[];
}

export const range = (n: number, from = 1): number[] =>
  Array.from({ length: n }, (_, i) => i + from);

/** The suite's webhook receiver, listening from `beforeAll` until `afterAll`. */
export function useReceiver(): Receiver {
  const receiver = slot<Receiver>('useReceiver()');
  beforeAll(async () => receiver.set(await new Receiver().start()));
  afterAll(() => receiver.value.close());
  return receiver.value;
}

/**
 * The suite's gateway (a key prefix of its own), with a dispatcher started for each environment
 * given; its dispatchers stop in `afterAll`.
 */
export function useGateway(...dispatchers: Record<string, string>[]): TestGateway {
  const gateway = slot<TestGateway>('useGateway()');
  beforeAll(async () => {
    const started = new TestGateway();
    gateway.set(started);
    for (const env of dispatchers) await started.dispatcher(env);
  });
  afterAll(() => gateway.value.close());
  return gateway.value;
}

/**
 * The suite's receiver, gateway (see useGateway) and an api on the gateway's key prefix, whose
 * admin API shows and replays what the dispatchers did.
 */
export function useWebhookGateway(...dispatchers: Record<string, string>[]): {
  receiver: Receiver;
  gateway: TestGateway;
  api: TestApi;
} {
  const receiver = useReceiver();
  const gateway = useGateway(...dispatchers);
  return { receiver, gateway, api: useApi(() => ({ REDIS_PREFIX: gateway.prefix })) };
}

/** An app whose receiver answers `status` until `heal()`, with events 1 to `count` published. */
export async function failingApp(
  gateway: TestGateway,
  receiver: Receiver,
  appId: string,
  count: number,
  status = 500,
): Promise<{ published: EventEnvelope<'dtmf'>[]; heal: () => void }> {
  await gateway.createApp({ app_id: appId, webhook_url: receiver.url(appId) });
  let healthy = false;
  receiver.respond(appId, () => ({ status: healthy ? 200 : status }));
  const published: EventEnvelope<'dtmf'>[] = [];
  for (const seq of range(count)) published.push(await gateway.publishSeq(appId, seq));
  return { published, heal: () => (healthy = true) };
}

/** An app's dead letters through the admin API; `query` such as `?limit=2&offset=1`. */
export async function deadLetters(
  api: TestApi,
  appId: string,
  query = '',
): Promise<DeadLetterList> {
  const res = await adminRequest(api, 'GET', `/admin/apps/${appId}/dead-letters${query}`);
  return res.json<DeadLetterList>();
}

/** Publishes a dtmf event whose duration_ms carries `seq`, to check order and loss. */
export function publishSeq(
  publisher: EventPublisher,
  appId: string,
  seq: number,
): Promise<EventEnvelope<'dtmf'>> {
  return publisher.publish<'dtmf'>(appId, {
    event: 'dtmf',
    session_uuid: 'abcde-00000000-0000-4000-8000-000000000000',
    digit: '1',
    duration_ms: seq,
  });
}
