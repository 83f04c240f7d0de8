import { signWebhook } from '@voicegw/shared';

/** The headers of one delivery attempt; the timestamp (and so the signature) is per attempt. */
export function webhookHeaders(
  secret: string,
  eventId: string,
  body: Buffer,
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
