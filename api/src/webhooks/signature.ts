import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks signing: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the app's
 * `whsec_…` secret. Receivers verify it with any Standard Webhooks library.
 */
export function signWebhook(
  secret: string,
  id: string,
  timestampSec: number,
  body: string,
): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
  const digest = createHmac('sha256', key).update(`${id}.${timestampSec}.${body}`).digest('base64');
  return `v1,${digest}`;
}

/** The headers of one delivery attempt; the timestamp (and so the signature) is per attempt. */
export function webhookHeaders(
  secret: string,
  eventId: string,
  body: string,
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': 'voicegw-webhooks',
    'webhook-id': eventId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, eventId, timestamp, body),
  };
}
