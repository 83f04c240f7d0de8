import { isIP } from 'node:net';
import { isForbiddenAddress, systemResolver, type Resolver } from '@voicegw/shared';

export type { Resolver };

/**
 * A URL the gateway connects to on an application's behalf: the field that carries it (named in
 * messages) and its scheme pair, the plain one accepted only where ALLOW_HTTP_WEBHOOKS allows.
 */
export interface UrlTarget {
  readonly field: string;
  readonly secure: string;
  readonly plain: string;
}

/** An app's `webhook_url`: the dispatcher POSTs its events there. */
export const WEBHOOK_URL = { field: 'webhook_url', secure: 'https', plain: 'http' } as const;
/** `url` of stream/start: the media node opens the media stream's WebSocket there. */
export const STREAM_URL = { field: 'url', secure: 'wss', plain: 'ws' } as const;

export interface OutboundUrlOptions {
  /** ALLOW_HTTP_WEBHOOKS: accept the plain scheme (http://, ws://) as well as the secure one. */
  readonly allowHttp: boolean;
  /** ALLOW_LOCALHOST_WEBHOOKS: accept hosts in the forbidden ranges. */
  readonly allowPrivate: boolean;
  /** Resolves a host name to its addresses; node:dns lookup with `all: true` by default. */
  readonly resolve?: Resolver;
  /** A lookup that takes longer counts as not resolving. */
  readonly resolveTimeoutMs?: number;
}

export type OutboundUrlProblem = 'invalid_url' | 'secure_required' | 'unresolvable' | 'forbidden';

export type OutboundUrlCheck =
  | {
      readonly ok: true;
      /** The addresses the host resolved to. */
      readonly addresses: readonly string[];
    }
  | { readonly ok: false; readonly problem: OutboundUrlProblem; readonly message: string };

const MESSAGES: Record<OutboundUrlProblem, (target: UrlTarget) => string> = {
  invalid_url: ({ field, plain, secure }) => `${field} must be a valid ${plain} or ${secure} URL`,
  secure_required: ({ field, secure }) => `${field} must use ${secure}`,
  unresolvable: ({ field }) => `${field} host does not resolve`,
  forbidden: ({ field }) =>
    `${field} must not resolve to a private, loopback or link-local address`,
};

const DEFAULT_RESOLVE_TIMEOUT_MS = 3000;

/**
 * The rules of a URL the gateway connects to: a URL of the target's two schemes, the secure one
 * unless the plain one is allowed, and a host that resolves, to no forbidden address unless
 * allowed. Whoever connects checks `isForbiddenAddress` again at connect time (the dispatcher,
 * the media node), since DNS can change.
 */
export async function checkOutboundUrl(
  url: string,
  target: UrlTarget,
  options: OutboundUrlOptions,
): Promise<OutboundUrlCheck> {
  const failed = (problem: OutboundUrlProblem): OutboundUrlCheck => ({
    ok: false,
    problem,
    message: MESSAGES[problem](target),
  });
  if (url.trim() !== url || !URL.canParse(url)) return failed('invalid_url');
  const parsed = new URL(url);
  const scheme = parsed.protocol.slice(0, -1);
  if (scheme !== target.secure && scheme !== target.plain) return failed('invalid_url');
  if (parsed.hostname === '') return failed('invalid_url');
  if (scheme === target.plain && !options.allowHttp) return failed('secure_required');

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
