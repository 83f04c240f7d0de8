/**
 * The event bus as the dispatcher sees it. Publishers append to the ingest stream (see
 * publisher.ts); a router moves events onto the bus, where every app's events stay in one
 * partition (a Redis shard stream or a Kafka partition), in publish order.
 */

/** One event read from the bus, not yet acknowledged. */
export interface BusEvent {
  /** The shard or partition it was read from, e.g. `shard-3`, `kafka-7`. */
  readonly partition: string;
  /** The bus's own id of the event: a stream entry id or a Kafka offset. */
  readonly id: string;
  /**
   * Its place in the partition, as a fixed-width string: comparing two positions of one
   * partition as strings orders them as the bus does.
   */
  readonly position: string;
  readonly appId: string;
  /** The webhook body: the event envelope as JSON, exactly as published. */
  readonly body: string;
}

/** What a consumer hands events to. */
export interface BusHandler {
  /**
   * Events of one partition, in partition order. Must return at once (queue the work); every
   * event stays unacknowledged until `EventBus.ack` is called for it.
   */
  receive(events: readonly BusEvent[]): void;
  /**
   * This process now reads the partition (and works its apps' retry lanes). No event of the
   * partition is handed over before the returned promise resolves.
   */
  assigned(partition: string): Promise<void>;
  /**
   * This process no longer reads the partition: drop its queued events (they stay
   * unacknowledged and go to the next owner) and resolve once work in progress has settled.
   */
  revoked(partition: string): Promise<void>;
}

export interface EventBus {
  /** Starts routing and consuming; events of the partitions this process owns go to `handler`. */
  start(handler: BusHandler): Promise<void>;
  /** Acknowledges an event: it is delivered, dead-lettered, dropped by rule or parked durably. */
  ack(event: BusEvent): Promise<void>;
  /** The partitions this process reads now. */
  owned(): readonly string[];
  /** Whether this process routes the ingest stream onto the bus now (one does at a time). */
  routing(): boolean;
  /** Stops reading, waits for `revoked` of every owned partition, releases leases. */
  stop(): Promise<void>;
}
