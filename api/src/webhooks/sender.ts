import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress, LookupOptions } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, request } from 'undici';
import { isForbiddenAddress, type Resolver } from '../domain/webhook-url.js';
import { parseRetryAfter } from './schedule.js';

/** What one delivery attempt came to. */
export type AttemptResult =
  | { readonly kind: 'delivered'; readonly status: number }
  | { readonly kind: 'gone'; readonly status: 410 }
  | {
      readonly kind: 'failed';
      readonly status: number | null;
      readonly error: string;
      /** From Retry-After on 429 or 503. */
      readonly retryAfterMs?: number;
    };

export interface SenderOptions {
  readonly timeoutMs: number;
  /** ALLOW_LOCALHOST_WEBHOOKS. */
  readonly allowPrivate: boolean;
  readonly connectionsPerOrigin: number;
  /** Host name → addresses; the system resolver by default. */
  readonly resolve?: Resolver;
}

const FORBIDDEN = 'ERR_WEBHOOK_FORBIDDEN_ADDRESS';

const systemResolver: Resolver = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * The socket's DNS lookup: resolves once, refuses the host when any address is forbidden (unless
 * allowed), and hands the socket the address it vetted, so no second lookup can be steered
 * elsewhere (DNS rebinding). TLS still uses the URL's host name for SNI and certificate checks,
 * and the Host header is unchanged.
 */
function vettedLookup(resolve: Resolver, allowPrivate: boolean) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname).then(
      (addresses) => {
        const forbidden = allowPrivate ? undefined : addresses.find(isForbiddenAddress);
        const address = addresses[0];
        if (forbidden !== undefined || address === undefined) {
          const error: NodeJS.ErrnoException = new Error(
            forbidden === undefined
              ? `${hostname} does not resolve`
              : `${hostname} resolves to a forbidden address (${forbidden})`,
          );
          error.code = forbidden === undefined ? 'ENOTFOUND' : FORBIDDEN;
          callback(error, '');
          return;
        }
        const family = isIP(address);
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}

const TIMEOUT_CODES = new Set([
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const CHECKED_URLS_MAX = 10_000;

/**
 * POSTs webhooks with undici: one keep-alive pool per receiver origin. Connecting, the response
 * headers after the request and each part of the body are each bounded by `timeoutMs` with
 * undici's own timers (cheaper than a timer and an AbortSignal per request). Redirects are not
 * followed: only a 2xx counts as delivered.
 */
export class WebhookSender {
  private readonly agent: Agent;
  /** Per webhook_url: why it is refused before any lookup (a forbidden IP literal), or null. */
  private readonly checkedUrls = new Map<string, string | null>();

  constructor(private readonly o: SenderOptions) {
    this.agent = new Agent({
      connections: o.connectionsPerOrigin,
      keepAliveTimeout: 30_000,
      keepAliveMaxTimeout: 120_000,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      connect: {
        timeout: o.timeoutMs,
        lookup: vettedLookup(o.resolve ?? systemResolver, o.allowPrivate),
      },
    });
  }

  async send(url: string, headers: Record<string, string>, body: string): Promise<AttemptResult> {
    const refusal = this.refusal(url);
    if (refusal) return failed(null, refusal);
    try {
      const response = await request(url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.agent,
      });
      await response.body.dump().catch(() => undefined);
      const status = response.statusCode;
      if (status >= 200 && status < 300) return { kind: 'delivered', status };
      if (status === 410) return { kind: 'gone', status };
      const retryAfter =
        status === 429 || status === 503
          ? parseRetryAfter(header(response.headers['retry-after']))
          : undefined;
      return retryAfter === undefined
        ? failed(status, `HTTP ${status}`)
        : { kind: 'failed', status, error: `HTTP ${status}`, retryAfterMs: retryAfter };
    } catch (err) {
      return failed(null, describe(err, this.o.timeoutMs));
    }
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Why a URL is refused before connecting: unparseable, or a forbidden IP literal. */
  private refusal(url: string): string | null {
    let refusal = this.checkedUrls.get(url);
    if (refusal !== undefined) return refusal;
    if (!URL.canParse(url)) refusal = 'invalid webhook_url';
    else {
      const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
      // An IP literal never goes through the lookup above.
      const forbidden = !this.o.allowPrivate && isIP(host) !== 0 && isForbiddenAddress(host);
      refusal = forbidden ? `${host} is a forbidden address` : null;
    }
    if (this.checkedUrls.size >= CHECKED_URLS_MAX) this.checkedUrls.clear();
    this.checkedUrls.set(url, refusal);
    return refusal;
  }
}

const failed = (status: number | null, error: string): AttemptResult => ({
  kind: 'failed',
  status,
  error,
});

function header(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function describe(err: unknown, timeoutMs: number): string {
  if (!(err instanceof Error)) return String(err);
  const cause: NodeJS.ErrnoException | undefined =
    err.cause instanceof Error ? err.cause : undefined;
  const code = (err as NodeJS.ErrnoException).code ?? cause?.code;
  if (code && TIMEOUT_CODES.has(code)) return `no response within ${timeoutMs} ms`;
  if (code === FORBIDDEN) return (cause ?? err).message;
  return code ? `${code}: ${err.message}` : err.message;
}
