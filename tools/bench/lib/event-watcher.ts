import { EVENT_FIELDS, hopTrace } from '@voicegw/shared';
import { KeyedMailbox } from '@voicegw/simulator/client';
import type { Redis } from 'ioredis';

/** A published event: the contract payload plus the envelope. */
export type GatewayEvent = Readonly<Record<string, unknown>> & { readonly event: string };

/** Where the load generator waits for the gateway's events, by the keys of `eventKeys`. */
export interface GatewayEvents {
  /** The event with this key, already read or within `timeoutMs`. */
  once(key: string, timeoutMs?: number): Promise<GatewayEvent>;
  /** Events read so far. */
  readonly read: number;
  stop(): Promise<void>;
}

/**
 * The keys an event is awaited by: `<event>:<session_uuid>` for every event,
 * `<event>:op:<operation_id>` as well when it has one, `<event>:room:<room_id>` for room events.
 */
export function eventKeys(event: GatewayEvent): string[] {
  const session = typeof event.session_uuid === 'string' ? event.session_uuid : '';
  const keys = [`${event.event}:${session}`];
  if (typeof event.operation_id === 'string') keys.push(`${event.event}:op:${event.operation_id}`);
  if (typeof event.room_id === 'string' && !session) {
    keys.push(`${event.event}:room:${event.room_id}`);
  }
  return keys;
}

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Reads the gateway's event stream (where the media node and the api publish, and the webhook
 * dispatcher reads) on a connection of its own, and hands events to whoever waits for them by
 * their keys (`eventKeys`). This is the ingest stream every process
 * appends to (the dispatcher's router moves it onto the bus); no dispatcher runs in the
 * benchmark, so the watcher is its only reader and trims what it has read.
 */
export class EventWatcher implements GatewayEvents {
  private readonly mailbox = new KeyedMailbox<GatewayEvent>();
  private lastId: string;
  private stopped = false;
  private readonly loop: Promise<void>;
  /** Events read so far. */
  read = 0;

  private constructor(
    private readonly redis: Redis,
    private readonly stream: string,
    lastId: string,
  ) {
    this.lastId = lastId;
    this.loop = this.run();
  }

  /**
   * Starts reading after the newest entry now in the stream. A fixed id, not `$`: `$` in every
   * XREAD would miss what is appended between two reads.
   */
  static async start(redis: Redis, stream: string): Promise<EventWatcher> {
    const [newest] = await redis.xrevrange(stream, '+', '-', 'COUNT', 1);
    return new EventWatcher(redis, stream, newest?.[0] ?? '0-0');
  }

  /** The event with this key, already read or within `timeoutMs`. */
  once(key: string, timeoutMs = DEFAULT_TIMEOUT_MS): Promise<GatewayEvent> {
    return this.mailbox.once(key, timeoutMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
    this.redis.disconnect();
  }

  private async run(): Promise<void> {
    let lastTrim = Date.now();
    while (!this.stopped) {
      const reply = await this.redis
        .xread('COUNT', 1000, 'BLOCK', 100, 'STREAMS', this.stream, this.lastId)
        .catch(() => null);
      for (const [, entries] of reply ?? []) {
        for (const [id, fields] of entries) {
          this.lastId = id;
          const body = fields[fields.indexOf(EVENT_FIELDS.body) + 1];
          if (body !== undefined) this.deliver(JSON.parse(body) as GatewayEvent);
        }
      }
      if (Date.now() - lastTrim > 1000 && this.lastId !== '0-0') {
        lastTrim = Date.now();
        await this.redis.xtrim(this.stream, 'MINID', this.lastId).catch(() => 0);
      }
    }
  }

  private deliver(event: GatewayEvent): void {
    this.read++;
    if (event.event === 'command.result' && typeof event.operation_id === 'string') {
      hopTrace.mark(event.operation_id, 'bench.read');
    }
    this.mailbox.deliver(eventKeys(event), event);
  }
}
