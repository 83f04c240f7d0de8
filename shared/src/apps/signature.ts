import { createHmac, createSecretKey, type KeyObject } from 'node:crypto';

/** Signing keys by secret, imported once rather than per signature; bounded like the app cache. */
const signingKeys = new Map<string, KeyObject>();
const SIGNING_KEYS_MAX = 50_000;

function signingKey(secret: string): KeyObject {
  let key = signingKeys.get(secret);
  if (!key) {
    key = createSecretKey(
      Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64'),
    );
    if (signingKeys.size >= SIGNING_KEYS_MAX) signingKeys.clear();
    signingKeys.set(secret, key);
  }
  return key;
}

/**
 * Standard Webhooks signing: `webhook-signature` is `v1,` and the base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}`, keyed with the base64-decoded part of the app's
 * `whsec_…` secret. Receivers verify it with any Standard Webhooks library. The dispatcher signs
 * each webhook's body; the media node signs a media stream's URL in its upgrade request.
 */
export function signWebhook(
  secret: string,
  id: string,
  timestampSec: number,
  body: Buffer,
): string {
  const digest = createHmac('sha256', signingKey(secret))
    .update(`${id}.${timestampSec}.`)
    .update(body)
    .digest('base64');
  return `v1,${digest}`;
}
