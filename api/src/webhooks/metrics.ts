import { createMetricsRegistry, LabelledChildren } from '@voicegw/shared';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** How a webhook event (or one attempt of it) turned out. */
export type DeliveryOutcome =
  'delivered' | 'failed' | 'gone' | 'dead_lettered' | 'filtered' | 'dropped';

export interface LaneStats {
  /** Events waiting in retry lanes of the partitions this process owns. */
  readonly events: number;
  /** Apps with a waiting lane. */
  readonly apps: number;
  /** Events held in memory, read from the bus and not yet acknowledged. */
  readonly queued: number;
  readonly partitions: number;
}

/** The dispatcher's Prometheus metrics, served on DISPATCHER_METRICS_PORT. */
export class DispatcherMetrics {
  readonly registry: Registry = createMetricsRegistry('dispatcher');

  /** Attempts by outcome (delivered, failed, gone) and event fates (dead_lettered, filtered, dropped). */
  private readonly deliveries = new Counter({
    name: 'voicegw_webhook_deliveries_total',
    help: 'Webhook deliveries by outcome and event name',
    labelNames: ['outcome', 'event'] as const,
    registers: [this.registry],
  });

  private readonly latency = new Histogram({
    name: 'voicegw_webhook_delivery_duration_seconds',
    help: 'Duration of one webhook attempt, by outcome',
    labelNames: ['outcome'] as const,
    buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15],
    registers: [this.registry],
  });

  readonly busLag = new Histogram({
    name: 'voicegw_event_bus_lag_seconds',
    help: 'Time from publishing an event to the dispatcher receiving it from the bus',
    buckets: [0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 120],
    registers: [this.registry],
  });

  // Few: outcomes × the 24 event names.
  private readonly counters = new LabelledChildren((...labels) =>
    this.deliveries.labels(...labels),
  );
  private readonly timers = new LabelledChildren((...labels) => this.latency.labels(...labels));

  /** Counts one attempt's outcome or one event's fate. */
  count(outcome: DeliveryOutcome, event: string): void {
    this.counters.get(outcome, event).inc();
  }

  /** Records how long one attempt took. */
  timeAttempt(outcome: 'delivered' | 'failed' | 'gone', seconds: number): void {
    this.timers.get(outcome).observe(seconds);
  }

  constructor(stats: () => LaneStats) {
    const gauge = (name: string, help: string, pick: (s: LaneStats) => number): void => {
      new Gauge({
        name,
        help,
        registers: [this.registry],
        collect() {
          this.set(pick(stats()));
        },
      });
    };
    gauge(
      'voicegw_webhook_lane_depth',
      'Events waiting in retry lanes (owned partitions)',
      (s) => s.events,
    );
    gauge('voicegw_webhook_lanes', 'Apps whose events wait in a retry lane', (s) => s.apps);
    gauge(
      'voicegw_event_bus_unacked_events',
      'Events read from the bus, not yet acknowledged',
      (s) => s.queued,
    );
    gauge(
      'voicegw_event_bus_partitions',
      'Bus shards or partitions this dispatcher reads',
      (s) => s.partitions,
    );
  }
}
