import {
  COMMAND_FIELD,
  compareStreamIds,
  decodeCommand,
  isRedisUnavailable,
  toRecord,
  writeOnce,
  type CommandMessage,
  type Logger,
  type UntilWritten,
} from '@voicegw/shared';
import type { Redis } from 'ioredis';
import { isExpired, type DeadlineCommand } from './command-failure.js';

export interface ConsumerOptions {
  /** Command connection (XACK, XAUTOCLAIM, XTRIM...). */
  readonly redis: Redis;
  /** Dedicated connection for XREADGROUP BLOCK. */
  readonly blocking: Redis;
  readonly stream: string;
  readonly group: string;
  readonly consumer: string;
  readonly blockMs: number;
  readonly batch: number;
  readonly concurrency: number;
  readonly claimIdleMs: number;
  readonly claimIntervalMs: number;
  /** A command read this long after its `issued_at` is expired, not executed (isExpired). */
  readonly deadlineMs: number;
  readonly log: Logger;
  /**
   * `entryId`: the command's stream entry (its result is published only while it is pending).
   * Resolves true when the command's result script acknowledged the entry already.
   */
  readonly execute: (message: CommandMessage, entryId: string) => Promise<boolean | void>;
  /** Answers a command past its deadline as its failure is reported, without running it. */
  readonly expire: (message: DeadlineCommand, entryId: string) => Promise<void>;
  /** How hard an XACK tries (the node's waits through a Redis outage); once by default. */
  readonly retry?: UntilWritten;
}

type Entry = [id: string, fields: string[]];

/**
 * The node's command stream consumer: XREADGROUP on its own blocking connection, each entry
 * executed (concurrently, up to a limit) and XACKed after execution. Entries another consumer
 * left pending longer than `claimIdleMs` (it died) are claimed with XAUTOCLAIM at start and
 * periodically, within the same concurrency limit; the stream is trimmed below what every group
 * has acknowledged. A command found after its deadline is answered as expired instead.
 */
export class CommandConsumer {
  private stopped = false;
  private readonly inflight = new Map<string, Promise<void>>();
  private loop: Promise<void> | undefined;
  private claimTimer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;
  /**
   * Entries read or claimed while every slot was taken (a read and a claim can both fill the
   * same free slots): they start, in order, as commands finish, so at most `concurrency` run.
   */
  private readonly queued = new Map<string, Entry>();
  /** A claim round stopped at the concurrency limit: claim again when a command finishes. */
  private claimLeft = false;
  private claiming: Promise<void> | undefined;
  /** Entries executed whose XACK failed: taken again from our pending list, they are acked. */
  private readonly executed = new Set<string>();
  private recovering: Promise<void> | undefined;

  constructor(private readonly o: ConsumerOptions) {}

  async start(): Promise<void> {
    await this.ensureGroup();
    await this.maintain();
    this.o.blocking.on('ready', this.onReconnected);
    this.loop = this.run();
    this.claimTimer = setInterval(() => void this.maintain(), this.o.claimIntervalMs);
  }

  /**
   * An XREADGROUP that Redis served while the connection was dropping has made its entries
   * ours (they are in our pending list, in the AOF too) while its reply never arrived, and
   * ioredis resends the read with `>` after the reconnect, past them: without this they waited
   * for a claim after `claimIdleMs`, then expired. So after every reconnect our own pending
   * entries are read again (ID 0) and what is neither running, queued nor done is run.
   */
  private readonly onReconnected = (): void => {
    if (this.stopped) return;
    this.recovering ??= this.recoverOwnPending()
      .catch((err: unknown) => this.o.log.warn({ err }, 'reading our pending commands failed'))
      .finally(() => (this.recovering = undefined));
  };

  private async recoverOwnPending(): Promise<void> {
    let after = '0';
    for (;;) {
      const reply = (await this.o.redis.xreadgroup(
        'GROUP',
        this.o.group,
        this.o.consumer,
        'COUNT',
        100,
        'STREAMS',
        this.o.stream,
        after,
      )) as [string, Entry[]][] | null;
      const entries = reply?.[0]?.[1] ?? [];
      if (entries.length === 0) return;
      for (const entry of entries) {
        after = entry[0];
        if (!this.toRunAgain(entry)) continue;
        this.o.log.warn({ id: entry[0] }, 'a command read as the connection dropped is run now');
        this.dispatch(entry);
      }
    }
  }

  /**
   * Whether a pending entry taken again (claimed, or re-read after a reconnect) is to run: not
   * while it runs or waits for a slot, nor when it ran already or its content was trimmed away,
   * in which case only its acknowledgement was missing and is sent again.
   */
  private toRunAgain([id, fields]: Entry): boolean {
    if (this.inflight.has(id) || this.queued.has(id)) return false;
    if (this.executed.delete(id) || !fields) {
      void this.ack(id);
      return false;
    }
    return true;
  }

  /** Stops reading, waits for the commands in execution, then returns. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.claimTimer);
    this.o.blocking.off('ready', this.onReconnected);
    this.wake?.();
    this.o.blocking.disconnect();
    await this.loop;
    await Promise.allSettled([...this.inflight.values()]);
  }

  get executing(): number {
    return this.inflight.size;
  }

  private async ensureGroup(): Promise<void> {
    try {
      // From the start of the stream: entries without a group were never executed by anyone.
      await this.o.redis.xgroup('CREATE', this.o.stream, this.o.group, '0', 'MKSTREAM');
    } catch (err) {
      if (!String(err).includes('BUSYGROUP')) throw err;
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      if (this.free() <= 0) {
        await new Promise<void>((resolve) => (this.wake = resolve));
        continue;
      }
      try {
        const reply = (await this.o.blocking.xreadgroup(
          'GROUP',
          this.o.group,
          this.o.consumer,
          'COUNT',
          Math.min(this.o.batch, this.free()),
          'BLOCK',
          this.o.blockMs,
          'STREAMS',
          this.o.stream,
          '>',
        )) as [string, Entry[]][] | null;
        failures = 0;
        for (const [, entries] of reply ?? []) for (const entry of entries) this.dispatch(entry);
      } catch (err) {
        if (this.stopped) return;
        failures++;
        if (String(err).includes('NOGROUP')) await this.ensureGroup().catch(() => undefined);
        else this.o.log.warn({ err }, 'reading commands failed');
        await sleep(Math.min(2000, 50 * 2 ** failures));
      }
    }
  }

  /** Slots neither running nor promised to a queued entry. */
  private free(): number {
    return this.o.concurrency - this.inflight.size - this.queued.size;
  }

  private dispatch(entry: Entry): void {
    const [id] = entry;
    if (this.inflight.has(id) || this.queued.has(id)) return;
    if (this.inflight.size >= this.o.concurrency) this.queued.set(id, entry);
    else this.launch(entry);
  }

  /** Starts the oldest queued entry, if any. */
  private startNext(): void {
    const next = this.queued.values().next();
    if (next.done) return;
    this.queued.delete(next.value[0]);
    this.launch(next.value);
  }

  private launch([id, fields]: Entry): void {
    const raw = fields[fields.indexOf(COMMAND_FIELD) + 1];
    let message: CommandMessage;
    try {
      message = decodeCommand(raw ?? '');
    } catch (err) {
      this.o.log.error({ err, id }, 'undecodable command dropped');
      void this.ack(id);
      this.startNext();
      return;
    }
    const run = isExpired(message, this.o.deadlineMs)
      ? this.o.expire(message, id)
      : this.o.execute(message, id);
    const done = run
      .then(
        // A session command's result script acknowledged it: a second XACK would be a round
        // trip for nothing.
        async (acknowledged) => {
          if (acknowledged !== true) await this.ack(id);
        },
        (err: unknown) => {
          // A result that never reached Redis: the entry stays pending, so it is not lost.
          if (isRedisUnavailable(err)) {
            this.o.log.error({ err, id, kind: message.kind }, 'command left pending: no Redis');
            return;
          }
          this.o.log.error({ err, id, kind: message.kind }, 'command failed');
          return this.ack(id);
        },
      )
      .finally(() => {
        this.inflight.delete(id);
        this.startNext();
        this.wake?.();
        this.wake = undefined;
        if (this.claimLeft) void this.claimRound();
      });
    this.inflight.set(id, done);
  }

  private async ack(id: string): Promise<void> {
    const { redis, stream, group, retry = writeOnce } = this.o;
    await retry('XACK', () => redis.xack(stream, group, id)).then(
      () => this.executed.delete(id),
      (err: unknown) => {
        this.executed.add(id);
        this.o.log.warn({ err, id }, 'XACK failed');
      },
    );
  }

  /** Claims what dead consumers left pending, forgets idle empty consumers, trims the stream. */
  private async maintain(): Promise<void> {
    await this.claimRound();
    if (this.stopped) return;
    await this.trim().catch((err: unknown) => this.o.log.warn({ err }, 'trimming commands failed'));
  }

  /** One claim round at a time (the timer's and those a finished command asks for). */
  private claimRound(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.claiming ??= this.claim()
      .catch((err: unknown) => this.o.log.warn({ err }, 'claiming commands failed'))
      .finally(() => (this.claiming = undefined));
    return this.claiming;
  }

  /** Claims no more than there is room for: the rest stays pending for the next round. */
  private async claim(): Promise<void> {
    let cursor = '0-0';
    this.claimLeft = false;
    do {
      const room = this.free();
      if (room <= 0) {
        this.claimLeft = true;
        return;
      }
      const [next, entries] = (await this.o.redis.xautoclaim(
        this.o.stream,
        this.o.group,
        this.o.consumer,
        this.o.claimIdleMs,
        cursor,
        'COUNT',
        Math.min(100, room),
      )) as [string, Entry[], string[]?];
      for (const entry of entries) {
        if (!this.toRunAgain(entry)) continue;
        this.o.log.info({ id: entry[0] }, 'claimed a command a dead consumer left pending');
        this.dispatch(entry);
      }
      cursor = next;
    } while (cursor !== '0-0' && !this.stopped);
  }

  private async trim(): Promise<void> {
    const { redis, stream } = this.o;
    const groups = (await redis.xinfo('GROUPS', stream)) as unknown[][];
    let floor: string | undefined;
    for (const raw of groups) {
      const group = toRecord(raw);
      const name = String(group.name);
      let low = String(group['last-delivered-id']);
      if (Number(group.pending) > 0) {
        const summary = (await redis.xpending(stream, name)) as [
          number,
          string | null,
          ...unknown[],
        ];
        if (summary[1]) low = summary[1];
      }
      if (floor === undefined || compareStreamIds(low, floor) < 0) floor = low;
      if (name === this.o.group) await this.forgetIdleConsumers();
    }
    if (floor && floor !== '0-0') await redis.xtrim(stream, 'MINID', floor);
  }

  /** Consumers of dead processes with nothing pending would otherwise pile up in the group. */
  private async forgetIdleConsumers(): Promise<void> {
    const { redis, stream, group } = this.o;
    const consumers = (await redis.xinfo('CONSUMERS', stream, group)) as unknown[][];
    for (const raw of consumers) {
      const consumer = toRecord(raw);
      const name = String(consumer.name);
      const idle = Number(consumer.idle);
      if (name === this.o.consumer || Number(consumer.pending) > 0) continue;
      if (idle > Math.max(this.o.claimIdleMs, 60_000) * 10)
        await redis.xgroup('DELCONSUMER', stream, group, name);
    }
  }
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
