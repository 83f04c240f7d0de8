import { isForbiddenAddress } from '@voicegw/shared';
import {
  checkOutboundUrl,
  WEBHOOK_URL,
  type OutboundUrlCheck,
  type OutboundUrlOptions,
} from './outbound-url.js';

// The address rule lives apart; the dispatcher applies the same one at connect.
export { isForbiddenAddress };
export type { Resolver } from './outbound-url.js';

/**
 * The contract's webhook_url rules 1–5: empty disables webhooks (no addresses); otherwise an
 * http(s) URL to a public address, as `checkOutboundUrl` says.
 */
export async function checkWebhookUrl(
  url: string,
  options: OutboundUrlOptions,
): Promise<OutboundUrlCheck> {
  if (url === '') return { ok: true, addresses: [] };
  return checkOutboundUrl(url, WEBHOOK_URL, options);
}
