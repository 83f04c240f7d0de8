import { lua, type LuaScripts, type RedisKeys } from '@voicegw/shared';
import type { BusEvent } from '@voicegw/shared/bus';
import type { Redis } from 'ioredis';

/** One event waiting in an app's retry lane (stored as JSON, oldest first). */
export interface LaneEntry {
  readonly event_id: string;
  readonly event: string;
  /** The bus partition the event came from: its lane is worked by that partition's owner. */
  readonly partition: string;
  /** Its place on the bus; the lane stays in this order. */
  readonly position: string;
  /** Attempts made so far (0: never tried, e.g. parked behind an earlier event). */
  readonly attempts: number;
  /** Epoch ms the next attempt is due; 0 = as soon as it is the head. */
  readonly next_at: number;
  /**
   * Set by an operator's "retry now": when the schedule had the next attempt. An attempt that
   * fails before then does not count, and the head waits for that time again.
   */
  readonly scheduled_at?: number;
  readonly last_status?: number | null;
  readonly last_error?: string;
  /** The webhook body, as published. */
  readonly body: string;
}

export type DeadLetterReason = 'failed' | 'gone' | 'app_disabled';

/** An event that will not be delivered unless replayed. */
export interface DeadLetter extends Omit<LaneEntry, 'next_at'> {
  readonly reason: DeadLetterReason;
  readonly failed_at: number;
}

export type Settlement =
  | { readonly action: 'done' }
  | { readonly action: 'retry'; readonly entry: LaneEntry }
  | { readonly action: 'dead'; readonly letter: DeadLetter };

/**
 * The per-app retry lanes in Redis: while an app's head event waits for a retry, its later events
 * wait behind it here (durably, so the bus can acknowledge them). Each bus partition has a due
 * set naming the apps whose lane head is due, which its owner polls.
 */
export class Lanes {
  constructor(
    private readonly redis: Redis,
    private readonly scripts: LuaScripts,
    private readonly keys: RedisKeys,
    private readonly deadLetterMax: number,
  ) {}

  /** Parks entries (in bus order); returns the lane's length. */
  async park(appId: string, partition: string, entries: readonly LaneEntry[]): Promise<number> {
    const { keys } = this;
    const length = await this.scripts.run(
      lua.parkEvents(
        {
          lane: keys.webhookLane(appId),
          laneIds: keys.webhookLaneIds(appId),
          lanesDue: keys.webhookLanesDue(partition),
        },
        { appId, now: Date.now(), entries: entries.map((entry) => JSON.stringify(entry)) },
      ),
    );
    return Number(length);
  }

  async head(appId: string): Promise<LaneEntry | undefined> {
    const raw = await this.redis.lindex(this.keys.webhookLane(appId), 0);
    return raw ? (JSON.parse(raw) as LaneEntry) : undefined;
  }

  /**
   * Settles the attempted head; returns the lane's length, or ScriptCode.LANE_HEAD_CHANGED
   * (negative) if the head had changed.
   */
  async settle(appId: string, head: LaneEntry, settlement: Settlement): Promise<number> {
    const { keys } = this;
    const payload =
      settlement.action === 'retry'
        ? JSON.stringify(settlement.entry)
        : settlement.action === 'dead'
          ? JSON.stringify(settlement.letter)
          : '';
    const length = await this.scripts.run(
      lua.settleLane(
        {
          lane: keys.webhookLane(appId),
          laneIds: keys.webhookLaneIds(appId),
          lanesDue: keys.webhookLanesDue(head.partition),
          deadLetters: keys.webhookDeadLetters(appId),
        },
        {
          appId,
          now: Date.now(),
          eventId: head.event_id,
          action: settlement.action,
          payload,
          deadLetterMax: this.deadLetterMax,
        },
      ),
    );
    return Number(length);
  }

  /** Dead-letters an event that never entered the lane. */
  async deadLetter(appId: string, letter: DeadLetter): Promise<void> {
    const key = this.keys.webhookDeadLetters(appId);
    await this.redis
      .multi()
      .rpush(key, JSON.stringify(letter))
      .ltrim(key, -this.deadLetterMax, -1)
      .exec();
  }

  /** Moves the whole lane to the dead letters; returns the names of the events moved. */
  async deadLetterAll(
    appId: string,
    partition: string,
    reason: DeadLetterReason,
  ): Promise<string[]> {
    const { keys } = this;
    const moved = await this.scripts.run(
      lua.deadLetterLane(
        {
          lane: keys.webhookLane(appId),
          laneIds: keys.webhookLaneIds(appId),
          lanesDue: keys.webhookLanesDue(partition),
          deadLetters: keys.webhookDeadLetters(appId),
        },
        { appId, now: Date.now(), reason, deadLetterMax: this.deadLetterMax },
      ),
    );
    return (moved as string[] | null) ?? [];
  }

  /** Whether any app of these partitions has a lane: one EXISTS (an empty due set is no key). */
  async anyWaiting(partitions: readonly string[]): Promise<boolean> {
    if (partitions.length === 0) return false;
    const sets = partitions.map((partition) => this.keys.webhookLanesDue(partition));
    return (await this.redis.exists(...sets)) > 0;
  }

  /**
   * Apps of each partition whose lane head is due now. Plain commands: issued together they
   * leave in one write anyway, and an ioredis pipeline object costs more to build than they do.
   */
  async due(partitions: readonly string[], limit = 500): Promise<Map<string, string[]>> {
    const due = new Map<string, string[]>();
    const now = Date.now();
    const replies = await Promise.allSettled(
      partitions.map((partition) =>
        this.redis.zrangebyscore(
          this.keys.webhookLanesDue(partition),
          '-inf',
          now,
          'LIMIT',
          0,
          limit,
        ),
      ),
    );
    partitions.forEach((partition, i) => {
      const reply = replies[i];
      if (reply?.status === 'fulfilled' && reply.value.length > 0) due.set(partition, reply.value);
    });
    return due;
  }

  /** Every app with a waiting lane in a partition, with its lane's length. */
  async waiting(partition: string): Promise<Map<string, number>> {
    const apps = await this.redis.zrange(this.keys.webhookLanesDue(partition), 0, -1);
    if (apps.length === 0) return new Map();
    const pipeline = this.redis.pipeline();
    for (const appId of apps) pipeline.llen(this.keys.webhookLane(appId));
    const replies = (await pipeline.exec()) ?? [];
    return new Map(apps.map((appId, i) => [appId, Number(replies[i]?.[1] ?? 0)]));
  }
}

/** A bus event with the envelope fields delivery needs. */
export interface Pending {
  readonly bus: BusEvent;
  readonly event_id: string;
  readonly event: string;
  readonly body: string;
}

/** The lane entry of an event, after `attempts` attempts, due at `nextAt` (0: at once). */
export function laneEntry(
  event: Pending,
  attempts: number,
  nextAt: number,
  status?: number | null,
  error?: string,
): LaneEntry {
  return {
    event_id: event.event_id,
    event: event.event,
    partition: event.bus.partition,
    position: event.bus.position,
    attempts,
    next_at: nextAt,
    ...(status === undefined ? {} : { last_status: status }),
    ...(error === undefined ? {} : { last_error: error }),
    body: event.body,
  };
}

/** The dead letter of a lane entry. */
export function deadLetter(
  entry: LaneEntry,
  attempts: number,
  reason: DeadLetterReason,
  status: number | null,
  error: string,
): DeadLetter {
  return {
    event_id: entry.event_id,
    event: entry.event,
    partition: entry.partition,
    position: entry.position,
    attempts,
    last_status: status,
    last_error: error,
    body: entry.body,
    reason,
    failed_at: Date.now(),
  };
}
