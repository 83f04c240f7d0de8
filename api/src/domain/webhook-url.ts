import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { isForbiddenAddress } from './forbidden-address.js';

// The address rule lives apart; the dispatcher applies the same one at connect.
export { isForbiddenAddress };

export type Resolver = (host: string) => Promise<readonly string[]>;

export interface WebhookUrlOptions {
  /** ALLOW_HTTP_WEBHOOKS: accept http:// as well as https://. */
  readonly allowHttp: boolean;
  /** ALLOW_LOCALHOST_WEBHOOKS: accept hosts in the forbidden ranges. */
  readonly allowPrivate: boolean;
  /** Resolves a host name to its addresses; node:dns lookup with `all: true` by default. */
  readonly resolve?: Resolver;
  /** A lookup that takes longer counts as not resolving. */
  readonly resolveTimeoutMs?: number;
}

export type WebhookUrlProblem = 'invalid_url' | 'https_required' | 'unresolvable' | 'forbidden';

export type WebhookUrlCheck =
  | {
      readonly ok: true;
      /** The addresses the host resolved to; empty for the empty URL (webhooks disabled). */
      readonly addresses: readonly string[];
    }
  | { readonly ok: false; readonly problem: WebhookUrlProblem; readonly message: string };

const MESSAGES: Record<WebhookUrlProblem, string> = {
  invalid_url: 'webhook_url must be a valid http or https URL',
  https_required: 'webhook_url must use https',
  unresolvable: 'webhook_url host does not resolve',
  forbidden: 'webhook_url must not resolve to a private, loopback or link-local address',
};

const DEFAULT_RESOLVE_TIMEOUT_MS = 3000;

const systemResolver: Resolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

const failed = (problem: WebhookUrlProblem): WebhookUrlCheck => ({
  ok: false,
  problem,
  message: MESSAGES[problem],
});

/**
 * The contract's webhook_url rules 1–5: empty disables webhooks; otherwise an http(s) URL,
 * https unless allowed, and a host that resolves, to no forbidden address unless allowed.
 * The dispatcher checks `isForbiddenAddress` again at delivery time, since DNS can change.
 */
export async function checkWebhookUrl(
  url: string,
  options: WebhookUrlOptions,
): Promise<WebhookUrlCheck> {
  if (url === '') return { ok: true, addresses: [] };
  if (url.trim() !== url || !URL.canParse(url)) return failed('invalid_url');
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return failed('invalid_url');
  if (parsed.hostname === '') return failed('invalid_url');
  if (parsed.protocol === 'http:' && !options.allowHttp) return failed('https_required');

  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const addresses =
    isIP(host) !== 0
      ? [host]
      : await resolveWithin(
          options.resolve ?? systemResolver,
          host,
          options.resolveTimeoutMs ?? DEFAULT_RESOLVE_TIMEOUT_MS,
        );
  if (addresses.length === 0) return failed('unresolvable');
  if (!options.allowPrivate && addresses.some(isForbiddenAddress)) return failed('forbidden');
  return { ok: true, addresses };
}

/** The host's addresses, or none when it does not resolve in time. */
async function resolveWithin(
  resolve: Resolver,
  host: string,
  timeoutMs: number,
): Promise<readonly string[]> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<readonly string[]>((done) => {
    timer = setTimeout(() => done([]), timeoutMs);
    timer.unref();
  });
  try {
    return await Promise.race([resolve(host).catch(() => []), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
