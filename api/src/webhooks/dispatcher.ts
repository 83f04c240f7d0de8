import type { BusEvent, BusHandler } from '@voicegw/shared/bus';
import { AppQueue, type Pending, type WorkerContext } from './app-queue.js';
import type { LaneStats } from './metrics.js';

export interface DispatcherContext extends WorkerContext {
  /** How often the owned partitions' due sets are polled while any of them has a lane. */
  readonly pollIntervalMs: number;
}

/**
 * How often they are polled while none has a lane. Every lane is seen at once otherwise: parked
 * here, read on taking the partition over, or announced by the api's dead-letter replay (`wake`),
 * the one lane this process did not park; retry-now acts on a lane that exists, so within the
 * full rate. This poll only bounds a replay whose announcement was lost.
 */
const IDLE_POLL_MS = 30_000;

interface Envelope {
  readonly event?: unknown;
  readonly event_id?: unknown;
  readonly timestamp?: unknown;
}

/**
 * The bus handler: events of the partitions this process owns go to one queue per app, which
 * delivers them in order (see AppQueue). For each owned partition it polls the due set of its
 * apps' retry lanes and wakes the apps whose lane head is due: every `pollIntervalMs` while any
 * lane waits, every IDLE_POLL_MS while none does.
 */
export class WebhookDispatcher implements BusHandler {
  private readonly queues = new Map<string, AppQueue>();
  private readonly partitions = new Set<string>();
  private pollTimer: NodeJS.Timeout | undefined;
  /** When the scheduled poll runs (epoch ms). */
  private pollAt = Number.POSITIVE_INFINITY;
  private polling = false;
  /** A poll was asked for while one ran: it may have read the due sets too early, so runs again. */
  private pollAgain = false;
  private stopped = false;

  constructor(private readonly ctx: DispatcherContext) {
    this.pollWithin(ctx.pollIntervalMs);
  }

  receive(events: readonly BusEvent[]): void {
    const now = Date.now();
    for (const bus of events) {
      if (!this.partitions.has(bus.partition)) continue; // stays unacknowledged for its owner
      const parsed = this.parse(bus);
      if (!parsed) continue;
      if (!Number.isNaN(parsed.published)) {
        this.ctx.metrics.busLag.observe(Math.max(0, now - parsed.published) / 1000);
      }
      this.queueFor(bus.appId, bus.partition).push(parsed.pending);
    }
  }

  async assigned(partition: string): Promise<void> {
    this.partitions.add(partition);
    // Apps whose events already wait in a lane must not get later events straight away.
    for (const [appId, length] of await this.ctx.lanes.waiting(partition)) {
      const queue = this.queueFor(appId, partition);
      queue.laneLength = Math.max(queue.laneLength, length);
      queue.kick();
      this.pollWithin(this.ctx.pollIntervalMs);
    }
  }

  async revoked(partition: string): Promise<void> {
    this.partitions.delete(partition);
    const queues = [...this.queues.values()].filter((q) => q.partition === partition);
    for (const queue of queues) this.queues.delete(queue.appId);
    await Promise.all(queues.map((queue) => queue.revoke()));
  }

  /** A lane may have been filled elsewhere (a replay was announced): polls now. */
  wake(): void {
    this.pollWithin(0);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.pollTimer);
  }

  stats(): LaneStats {
    let events = 0;
    let apps = 0;
    let queued = 0;
    for (const queue of this.queues.values()) {
      events += queue.laneLength;
      if (queue.laneLength > 0) apps++;
      queued += queue.queue.length + (queue.current ? 1 : 0);
    }
    return { events, apps, queued, partitions: this.partitions.size };
  }

  private queueFor(appId: string, partition: string): AppQueue {
    let queue = this.queues.get(appId);
    if (!queue) {
      queue = new AppQueue(
        appId,
        partition,
        this.ctx,
        (idle) => {
          if (this.queues.get(idle.appId) === idle) this.queues.delete(idle.appId);
        },
        () => this.pollWithin(this.ctx.pollIntervalMs),
      );
      this.queues.set(appId, queue);
    }
    return queue;
  }

  private parse(bus: BusEvent): { pending: Pending; published: number } | undefined {
    try {
      const envelope = JSON.parse(bus.body) as Envelope;
      if (typeof envelope.event === 'string' && typeof envelope.event_id === 'string') {
        return {
          pending: { bus, event: envelope.event, event_id: envelope.event_id, body: bus.body },
          published: Date.parse(String(envelope.timestamp)),
        };
      }
    } catch {
      // reported below
    }
    this.ctx.log.error({ app_id: bus.appId, id: bus.id }, 'undeliverable event body dropped');
    this.ctx.metrics.count('dropped', 'unknown');
    void this.ctx.ack(bus);
    return undefined;
  }

  /** Makes the next poll run within `ms` (sooner if it was due sooner). */
  private pollWithin(ms: number): void {
    const at = Date.now() + ms;
    if (this.stopped || at >= this.pollAt) return;
    clearTimeout(this.pollTimer);
    this.pollAt = at;
    this.pollTimer = setTimeout(() => {
      this.pollAt = Number.POSITIVE_INFINITY;
      void this.poll();
    }, ms);
  }

  /** Wakes the apps whose lane head is due, in every owned partition. */
  private async poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    let waiting = true;
    try {
      const partitions = [...this.partitions];
      waiting = await this.ctx.lanes.anyWaiting(partitions);
      if (!waiting) return;
      const due = await this.ctx.lanes.due(partitions);
      for (const [partition, apps] of due) {
        if (!this.partitions.has(partition)) continue;
        for (const appId of apps) {
          const queue = this.queueFor(appId, partition);
          if (queue.laneLength === 0) queue.laneLength = 1;
          queue.kick();
        }
      }
    } catch (err) {
      this.ctx.log.warn({ err }, 'polling retry lanes failed');
    } finally {
      this.polling = false;
      if (this.pollAgain) {
        this.pollAgain = false;
        this.pollWithin(0);
      }
      this.pollWithin(
        waiting ? this.ctx.pollIntervalMs : Math.max(IDLE_POLL_MS, this.ctx.pollIntervalMs),
      );
    }
  }
}
