import type { EventName } from './names.js';
import type { EventPayload } from './payloads.js';

/**
 * What a webhook body carries: the contract's payload plus the envelope of docs/webhooks.md.
 * `event_id` is also the `webhook-id` header and stays the same on every retry.
 */
export type EventEnvelope<N extends EventName = EventName> = EventPayload<N> & {
  readonly event_id: string;
  readonly app_id: string;
  /** ISO-8601 UTC time the event was published. */
  readonly timestamp: string;
  /** Dial metadata, echoed on every later event of a dialed session. */
  readonly metadata?: Record<string, unknown>;
};
