import { background, type Logger } from '@voicegw/shared';
import type { BusEvent } from '@voicegw/shared/bus';
import type { Attempt, AttemptDeps } from './attempt.js';
import { attemptDelivery } from './attempt.js';
import {
  deadLetter,
  laneEntry,
  type DeadLetterReason,
  type LaneEntry,
  type Lanes,
  type Pending,
  type Settlement,
} from './lanes.js';
import type { DispatcherMetrics } from './metrics.js';
import type { RetryPolicy } from './schedule.js';

/** What every app's worker shares. */
export interface WorkerContext extends AttemptDeps {
  readonly lanes: Lanes;
  readonly policy: RetryPolicy;
  readonly metrics: DispatcherMetrics;
  readonly log: Logger;
  /** Events of one app held in memory; beyond it they are parked in its lane. */
  readonly queuePerApp: number;
  /** Acknowledges on the bus; never throws. */
  ack(event: BusEvent): Promise<void>;
}

export type { Pending } from './lanes.js';

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => setTimeout(resolve, ms).unref());

/**
 * One app's delivery, strictly one event at a time in bus order. While the app's Redis lane is
 * empty, events go straight from the bus to the webhook and are acknowledged once delivered (or
 * dropped by rule). The first failure parks that event, with everything queued behind it, in the
 * lane and acknowledges them; from then on new events are parked behind them until the lane
 * drains, head first, on the retry schedule. Other apps have their own queues, so a failing
 * webhook holds up no one else.
 */
export class AppQueue {
  /** Read from the bus, waiting here (not acknowledged). */
  readonly queue: Pending[] = [];
  /** Events in the Redis lane as last seen; 0 means none: deliver straight from the bus. */
  laneLength = 0;
  /** The event being attempted straight from the bus. */
  current: Pending | undefined;
  private revoked = false;
  private running: Promise<void> | undefined;
  private readonly parks = new Set<Promise<void>>();
  private readonly acks = new Set<Promise<void>>();

  constructor(
    readonly appId: string,
    readonly partition: string,
    private readonly ctx: WorkerContext,
    private readonly onIdle: (queue: AppQueue) => void,
    /** Its lane head waits for a later time: the partition's poller must poll at full rate. */
    private readonly onWaiting: () => void,
  ) {}

  get idle(): boolean {
    return !this.running && this.queue.length === 0 && this.parks.size === 0 && !this.laneLength;
  }

  push(event: Pending): void {
    this.queue.push(event);
    if (this.queue.length > this.ctx.queuePerApp && !this.revoked) {
      // A slow webhook must not hold the bus: park what waits here and acknowledge it.
      this.laneLength += this.queue.length;
      this.track(this.parkQueue());
    }
    this.kick();
  }

  /** Makes sure the worker runs (after new events, or when the lane head is due). */
  kick(): void {
    if (this.running || this.revoked) return;
    this.running = this.run().finally(() => {
      this.running = undefined;
      if (this.revoked) return;
      if (this.queue.length > 0) this.kick();
      else if (this.idle) this.onIdle(this);
    });
  }

  /** The partition moved away: drop what waits in memory, let work in progress finish. */
  async revoke(): Promise<void> {
    this.revoked = true;
    this.queue.length = 0;
    await this.running;
    await Promise.allSettled([...this.parks, ...this.acks]);
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.revoked) {
      try {
        if (this.parks.size > 0) {
          await Promise.allSettled([...this.parks]);
          continue;
        }
        if (this.laneLength > 0) {
          if (this.queue.length > 0) {
            await this.parkQueue();
            continue;
          }
          const head = await this.ctx.lanes.head(this.appId);
          if (!head) {
            // Emptied elsewhere (app disabled or deleted): parking nothing re-reads its length
            // and files the app under its due time, or takes it off the due set.
            this.laneLength = await this.ctx.lanes.park(this.appId, this.partition, []);
            continue;
          }
          if (head.next_at > Date.now()) {
            this.onWaiting(); // the partition's poller wakes us when due
            return;
          }
          await this.retryHead(head);
        } else {
          const next = this.queue.shift();
          if (!next) return;
          await this.deliverNext(next);
        }
        failures = 0;
      } catch (err) {
        failures++;
        this.ctx.log.warn({ err, app_id: this.appId }, 'webhook lane work failed; retrying');
        await sleep(Math.min(5000, 100 * 2 ** failures));
      }
    }
  }

  /** First attempt of an event straight from the bus. */
  private async deliverNext(event: Pending): Promise<void> {
    this.current = event;
    let attempt: Attempt;
    try {
      attempt = await attemptDelivery(this.ctx, this.appId, event);
      if (attempt.kind === 'failed') {
        const delay = this.ctx.policy.nextDelay(1, attempt.retryAfterMs);
        if (delay === undefined) {
          await this.deadLetter(event, 1, 'failed', attempt.status, attempt.error);
        } else {
          const rest = this.queue.splice(0);
          const first = laneEntry(event, 1, Date.now() + delay, attempt.status, attempt.error);
          try {
            this.laneLength = await this.ctx.lanes.park(this.appId, this.partition, [
              first,
              ...rest.map((e) => laneEntry(e, 0, 0)),
            ]);
          } catch (err) {
            this.queue.unshift(...rest);
            throw err;
          }
          for (const e of rest) this.acknowledge(e);
        }
      } else if (attempt.kind === 'gone') {
        await this.deadLetter(event, 1, 'gone', attempt.status, 'HTTP 410');
      } else if (attempt.kind === 'disabled') {
        await this.deadLetter(event, 0, 'app_disabled', null, 'app disabled');
      } else if (attempt.kind === 'skipped') {
        this.ctx.metrics.count(attempt.outcome, event.event);
      }
    } catch (err) {
      this.queue.unshift(event);
      throw err;
    } finally {
      this.current = undefined;
    }
    this.acknowledge(event);
    if ('disabledNow' in attempt && attempt.disabledNow) await this.disable();
  }

  /** An attempt of the lane's head, on its schedule. */
  private async retryHead(head: LaneEntry): Promise<void> {
    const attempt = await attemptDelivery(this.ctx, this.appId, head);
    if (attempt.kind === 'disabled') {
      await this.disable();
      return;
    }
    const settlement = this.settlementOf(head, attempt);
    if (settlement.action === 'dead') {
      this.ctx.metrics.count('dead_lettered', head.event);
    } else if (attempt.kind === 'skipped') {
      this.ctx.metrics.count(attempt.outcome, head.event);
    }
    const length = await this.ctx.lanes.settle(this.appId, head, settlement);
    this.laneLength = length < 0 ? 1 : length; // LANE_HEAD_CHANGED: the head changed; look again
    if ('disabledNow' in attempt && attempt.disabledNow) await this.disable();
  }

  private settlementOf(
    head: LaneEntry,
    attempt: Exclude<Attempt, { kind: 'disabled' }>,
  ): Settlement {
    const made = head.attempts + 1;
    switch (attempt.kind) {
      case 'delivered':
      case 'skipped':
        return { action: 'done' };
      case 'gone':
        return {
          action: 'dead',
          letter: deadLetter(head, made, 'gone', attempt.status, 'HTTP 410'),
        };
      case 'failed': {
        // An operator's retry-now that failed before the scheduled attempt: not counted, the
        // head waits for that attempt again.
        if (head.scheduled_at !== undefined && head.scheduled_at > Date.now()) {
          return {
            action: 'retry',
            entry: failedHead(head, head.attempts, head.scheduled_at, attempt),
          };
        }
        const delay = this.ctx.policy.nextDelay(made, attempt.retryAfterMs);
        if (delay === undefined) {
          return {
            action: 'dead',
            letter: deadLetter(head, made, 'failed', attempt.status, attempt.error),
          };
        }
        return { action: 'retry', entry: failedHead(head, made, Date.now() + delay, attempt) };
      }
    }
  }

  /** Dead-letters an event that never entered the lane (the caller acknowledges it). */
  private async deadLetter(
    event: Pending,
    attempts: number,
    reason: DeadLetterReason,
    status: number | null,
    error: string,
  ): Promise<void> {
    await this.ctx.lanes.deadLetter(
      this.appId,
      deadLetter(laneEntry(event, attempts, 0), attempts, reason, status, error),
    );
    this.ctx.metrics.count('dead_lettered', event.event);
  }

  /** The app was disabled: everything in its lane becomes a dead letter. */
  private async disable(): Promise<void> {
    const names = await this.ctx.lanes.deadLetterAll(this.appId, this.partition, 'app_disabled');
    for (const name of names) {
      this.ctx.metrics.count('dead_lettered', name);
    }
    this.laneLength = 0;
  }

  private async parkQueue(): Promise<void> {
    const batch = this.queue.splice(0);
    if (batch.length === 0) return;
    try {
      this.laneLength = await this.ctx.lanes.park(
        this.appId,
        this.partition,
        batch.map((e) => laneEntry(e, 0, 0)),
      );
    } catch (err) {
      this.queue.unshift(...batch);
      throw err;
    }
    for (const e of batch) this.acknowledge(e);
  }

  /**
   * Acknowledges on the bus without waiting: the event is settled (delivered, dropped, dead-
   * lettered or parked), so the next one need not wait for Redis. `revoke` waits for these.
   */
  private acknowledge(event: Pending): void {
    const ack = this.ctx.ack(event.bus);
    this.acks.add(ack);
    background(
      ack.finally(() => this.acks.delete(ack)),
      this.ctx.log,
      'acknowledging an event',
    );
  }

  private track(work: Promise<void>): void {
    const tracked = work.catch((err: unknown) =>
      this.ctx.log.warn({ err, app_id: this.appId }, 'parking events failed'),
    );
    this.parks.add(tracked);
    background(
      tracked.finally(() => this.parks.delete(tracked)),
      this.ctx.log,
      'parking events',
    );
  }
}

/** The lane head after a failed attempt: `attempts` made, the next due at `nextAt`. */
function failedHead(
  head: LaneEntry,
  attempts: number,
  nextAt: number,
  attempt: Extract<Attempt, { kind: 'failed' }>,
): LaneEntry {
  const { scheduled_at: _retriedNow, ...entry } = head;
  return {
    ...entry,
    attempts,
    next_at: nextAt,
    last_status: attempt.status,
    last_error: attempt.error,
  };
}
