import { Webhook } from 'standardwebhooks';
import type { EventPayloads } from './contract.js';

export type EventName = keyof EventPayloads;

/** What every webhook body carries besides the event's payload. */
export interface WebhookEnvelope {
  /** Unique per event, the `webhook-id` header; the same on every retry (deduplicate on it). */
  readonly event_id: string;
  readonly app_id: string;
  /** ISO-8601 UTC time the event was published. */
  readonly timestamp: string;
  /** The dial `metadata`, on every event of a dialed session that had some. */
  readonly metadata?: Record<string, unknown>;
}

/** A verified webhook: a union discriminated by `event`, each with its own payload fields. */
export type WebhookEvent<N extends EventName = EventName> = N extends EventName
  ? EventPayloads[N] & WebhookEnvelope
  : never;

/** Headers as node:http gives them, or a fetch `Headers`. */
export type WebhookHeaders =
  | Readonly<Record<string, string | readonly string[] | undefined>>
  | { get(name: string): string | null };

/** The body or signature of a webhook is not what the gateway sent with this secret. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

/** A header's value (the first, when repeated); used by the media-stream upgrade check too. */
export function headerValue(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
  const value = (headers as Record<string, string | readonly string[] | undefined>)[name];
  return typeof value === 'string' ? value : value?.[0];
}

/**
 * Verifies a webhook (Standard Webhooks: HMAC-SHA256 over id, timestamp and the raw body with the
 * app's `webhook_secret`, timestamps within 5 minutes) and returns its typed event. Pass the body
 * exactly as received, before any JSON parsing. Throws WebhookVerificationError otherwise.
 */
export function verifyWebhook(
  rawBody: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const signed: Record<string, string> = {};
  for (const name of SIGNED_HEADERS) {
    const value = headerValue(headers, name);
    if (value === undefined) throw new WebhookVerificationError(`Missing ${name} header`);
    signed[name] = value;
  }
  const body = typeof rawBody === 'string' ? rawBody : new TextDecoder().decode(rawBody);
  let event: unknown;
  try {
    event = new Webhook(secret).verify(body, signed);
  } catch (cause) {
    throw new WebhookVerificationError(cause instanceof Error ? cause.message : 'Invalid webhook', {
      cause,
    });
  }
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof (event as { event?: unknown }).event !== 'string'
  )
    throw new WebhookVerificationError('Webhook body is not an event');
  return event as WebhookEvent;
}
