import type { BusEvent, BusHandler } from '@voicegw/shared/bus';
import { AppQueue, type Pending, type WorkerContext } from './app-queue.js';
import type { LaneStats } from './metrics.js';

export interface DispatcherContext extends WorkerContext {
  /** How often each owned partition's due set is polled for retries that are due. */
  readonly pollIntervalMs: number;
}

interface Envelope {
  readonly event?: unknown;
  readonly event_id?: unknown;
  readonly timestamp?: unknown;
}

/**
 * The bus handler: events of the partitions this process owns go to one queue per app, which
 * delivers them in order (see AppQueue). For each owned partition it polls the due set of its
 * apps' retry lanes and wakes the apps whose lane head is due.
 */
export class WebhookDispatcher implements BusHandler {
  private readonly queues = new Map<string, AppQueue>();
  private readonly partitions = new Set<string>();
  private readonly pollTimer: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly ctx: DispatcherContext) {
    this.pollTimer = setInterval(() => void this.poll(), ctx.pollIntervalMs);
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
    }
  }

  async revoked(partition: string): Promise<void> {
    this.partitions.delete(partition);
    const queues = [...this.queues.values()].filter((q) => q.partition === partition);
    for (const queue of queues) this.queues.delete(queue.appId);
    await Promise.all(queues.map((queue) => queue.revoke()));
  }

  stop(): void {
    clearInterval(this.pollTimer);
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
      queue = new AppQueue(appId, partition, this.ctx, (idle) => {
        if (this.queues.get(idle.appId) === idle) this.queues.delete(idle.appId);
      });
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

  /** Wakes the apps whose lane head is due, in every owned partition. */
  private async poll(): Promise<void> {
    if (this.polling || this.partitions.size === 0) return;
    this.polling = true;
    try {
      const due = await this.ctx.lanes.due([...this.partitions]);
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
    }
  }
}
