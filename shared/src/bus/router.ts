import type { Redis } from 'ioredis';
import type { RedisEndpoint } from '../config/redis.js';
import { EVENT_FIELDS } from '../events/publisher.js';
import type { Logger } from '../logger.js';
import { createRedis } from '../redis/client.js';
import type { RedisKeys } from '../redis/keys.js';
import { SCRIPT_BUILDERS as lua } from '../redis/lua/index.js';
import { failureCode, ScriptCode } from '../redis/script-codes.js';
import { LuaScripts } from '../redis/scripts.js';
import type { Lease, LeaseKeeper } from './lease.js';

/** One entry of the ingest stream. */
export interface IngestEntry {
  /** Its stream id. */
  readonly id: string;
  readonly appId: string;
  /** The event envelope JSON. */
  readonly body: string;
}

/** One event as the router's step appends it to a shard stream. */
export interface ShardAppend {
  /** The shard stream's key. */
  readonly stream: string;
  readonly entry: IngestEntry;
}

/** Stream field of a shard entry: the id of the ingest entry it was forwarded from. */
export const SOURCE_FIELD = 'src';

/** Where the router puts events: the Redis shard streams or the Kafka topic. */
export interface RouterSink {
  /**
   * Forwards entries in order. A sink in Redis returns them as shard appends, which the
   * router's step (routeEvents-1.lua) makes together with moving its cursor; a sink elsewhere
   * has them stored when it resolves, and returns none.
   */
  forward(entries: readonly IngestEntry[]): Promise<readonly ShardAppend[]>;
  close(): Promise<void>;
}

export interface RouterOptions {
  readonly redisEndpoint: RedisEndpoint;
  /** Command connection (trimming). */
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly leases: LeaseKeeper;
  readonly sink: RouterSink;
  readonly log: Logger;
  readonly blockMs?: number;
  readonly batch?: number;
}

type Entry = [id: string, fields: string[]];

/** Forwarded entries leave the ingest stream this long after the first of them was forwarded. */
const TRIM_DELAY_MS = 1000;
/**
 * How long one XREAD waits for events. Nothing needs it to return sooner: a lost lease and a stop
 * interrupt it (`lost`, disconnect); each return with nothing is a wake-up of the dispatcher and
 * of Redis.
 */
const BLOCK_MS = 30_000;

/** The cursor moved under us: another router holds the lease now. */
class RouterDisplaced extends Error {}

/** The router's lease ran out while it waited on Redis. */
class LeaseLost extends Error {}

/**
 * Moves events from the ingest stream onto the bus, in stream order, under a lease so that one
 * router runs at a time. The cursor (the last forwarded id) moves in one script step with a
 * Redis sink's appends, and only from where this router left it, so a displaced router cannot
 * write behind its successor; entries are trimmed from the ingest stream once forwarded.
 */
export class IngestRouter {
  private lease: Lease | undefined;
  private connection: Redis | undefined;
  private loop: Promise<void> | undefined;
  private trimTimer: NodeJS.Timeout | undefined;
  private cursor = '0-0';
  private stopped = false;

  constructor(private readonly o: RouterOptions) {}

  get running(): boolean {
    return this.lease !== undefined;
  }

  /** Takes the router lease when nobody holds it (called on every balancing tick). */
  async tick(): Promise<void> {
    if (this.stopped || this.lease) return;
    // Rejects once the lease is lost (its keeper ends it on a failed extension, or on the first
    // round after it ran out). What the router awaits races with it: an ioredis client
    // disconnected while it waits to reconnect (as the loss does) never settles the commands it
    // holds, so a router waiting on one would keep its stale lease, and no new router would
    // start, for good.
    let lose = (): void => undefined;
    const lost = new Promise<never>((_resolve, reject) => {
      lose = () => reject(new LeaseLost());
    });
    lost.catch(() => undefined);
    const lease = await this.o.leases.tryAcquire(this.o.keys.eventRouterLease(), () => {
      lose();
      this.connection?.disconnect();
    });
    if (!lease) return;
    if (this.stopped) {
      await lease.release();
      return;
    }
    this.lease = lease;
    this.o.log.info('routing the ingest stream onto the bus');
    this.connection = createRedis(this.o.redisEndpoint, { name: 'dispatcher:router' });
    this.connection.on('error', (err) => this.o.log.debug({ err }, 'router connection error'));
    this.loop = this.run(lease, this.connection, lost).finally(() => this.retire());
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connection?.disconnect();
    await this.loop;
    await this.o.sink.close();
  }

  private async retire(): Promise<void> {
    clearTimeout(this.trimTimer);
    this.trimTimer = undefined;
    this.connection?.disconnect();
    this.connection = undefined;
    const lease = this.lease;
    this.lease = undefined;
    await lease?.release();
  }

  private async run(lease: Lease, connection: Redis, lost: Promise<never>): Promise<void> {
    try {
      this.cursor = await Promise.race([this.readCursor(connection), lost]);
      await this.forward(lease, connection, lost);
    } catch (err) {
      if (!(err instanceof LeaseLost)) throw err;
      this.o.log.warn(
        'the router lease ran out while waiting on Redis; routing stops until it is taken again',
      );
    }
  }

  private async readCursor(connection: Redis): Promise<string> {
    return (await connection.get(this.o.keys.eventRouterCursor()).catch(() => null)) ?? '0-0';
  }

  private async forward(lease: Lease, connection: Redis, lost: Promise<never>): Promise<void> {
    const { keys, log } = this.o;
    const scripts = new LuaScripts(connection);
    let failures = 0;
    while (!this.stopped && lease.valid()) {
      try {
        const reply = await Promise.race([
          connection.xread(
            'COUNT',
            this.o.batch ?? 500,
            'BLOCK',
            this.o.blockMs ?? BLOCK_MS,
            'STREAMS',
            keys.events(),
            this.cursor,
          ),
          lost,
        ]);
        const entries = (reply?.[0]?.[1] ?? []) as Entry[];
        if (entries.length > 0 && lease.valid()) {
          await Promise.race([this.route(scripts, entries), lost]);
        }
        failures = 0;
      } catch (err) {
        if (err instanceof LeaseLost) throw err;
        if (this.stopped || !lease.valid()) return;
        if (err instanceof RouterDisplaced) {
          log.warn('another router moved the cursor; giving the lease up');
          return;
        }
        failures++;
        log.warn({ err }, 'routing events failed');
        await sleep(Math.min(2000, 50 * 2 ** failures));
      }
    }
  }

  private async route(scripts: LuaScripts, raw: readonly Entry[]): Promise<void> {
    const { keys } = this.o;
    const last = raw[raw.length - 1]?.[0] ?? this.cursor;
    const entries: IngestEntry[] = [];
    for (const [id, fields] of raw) {
      const appId = field(fields, EVENT_FIELDS.app);
      const body = field(fields, EVENT_FIELDS.body);
      if (appId && body) entries.push({ id, appId, body });
      else this.o.log.error({ id }, 'ingest entry without app or body skipped');
    }
    const events: string[] = [];
    for (const { stream, entry } of await this.o.sink.forward(entries)) {
      events.push(stream, entry.appId, entry.body, entry.id);
    }
    const reply = await scripts.run(
      lua.routeEvents(
        { cursor: keys.eventRouterCursor() },
        {
          from: this.cursor,
          to: last,
          appField: EVENT_FIELDS.app,
          bodyField: EVENT_FIELDS.body,
          sourceField: SOURCE_FIELD,
          events,
        },
      ),
    );
    if (failureCode(reply) === ScriptCode.ROUTER_DISPLACED) throw new RouterDisplaced();
    this.cursor = last;
    // Once a second while events flow, and never while none do.
    this.trimTimer ??= setTimeout(() => {
      this.trimTimer = undefined;
      void this.trim();
    }, TRIM_DELAY_MS);
  }

  /** Drops forwarded entries from the ingest stream (the cursor entry itself stays). */
  private async trim(): Promise<void> {
    if (this.cursor === '0-0') return;
    await this.o.redis
      .xtrim(this.o.keys.events(), 'MINID', this.cursor)
      .catch((err: unknown) => this.o.log.debug({ err }, 'trimming the ingest stream failed'));
  }
}

/** The value of a field of a stream entry. */
export function field(fields: readonly string[], name: string): string | undefined {
  for (let i = 0; i < fields.length - 1; i += 2) if (fields[i] === name) return fields[i + 1];
  return undefined;
}

export const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms).unref());
