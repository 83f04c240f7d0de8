import type { ClientRequest, ClientRequestArgs, IncomingMessage } from 'node:http';
import {
  FORBIDDEN_ADDRESS_CODE,
  literalRefusal,
  signWebhook,
  systemResolver,
  vettedLookup,
  type Resolver,
} from '@voicegw/shared';
import { WebSocket, type ClientOptions } from 'ws';

/** Largest message read from an application: larger ones close its socket (1009). */
export const MAX_APP_MESSAGE_BYTES = 1024 * 1024;
/** How long a close waits for the application's answer before the socket is cut. */
const CLOSE_TIMEOUT_MS = 2000;

export interface AppSocketOptions {
  /** Exactly the `url` of stream/start: it is what the signature covers. */
  readonly url: string;
  readonly streamId: string;
  readonly sessionId: string;
  /** The app's Standard Webhooks secret (`whsec_…`). */
  readonly secret: string;
  /** ALLOW_LOCALHOST_WEBHOOKS: connect to forbidden addresses too. */
  readonly allowPrivate: boolean;
  /** Everything (DNS, connect, TLS, upgrade) within this, else "timed out". */
  readonly timeoutMs: number;
  /** Aborts the attempt (the stream was stopped meanwhile). */
  readonly signal: AbortSignal;
  readonly resolve?: Resolver;
}

export type AppConnection =
  | { readonly ok: true; readonly socket: WebSocket }
  | { readonly ok: false; readonly reason: string };

/** Why an attempt failed, as stream.failed and command.result say it. */
export const CONNECT_FAILURES = {
  forbidden: 'address not allowed',
  refused: 'connection refused',
  timedOut: 'timed out',
  unresolvable: 'host does not resolve',
  aborted: 'stopped before it connected',
} as const;

/**
 * The upgrade request's headers: Standard Webhooks' over `<id>.<timestamp>.<url>`, so the app
 * can refuse anyone but the gateway with the verifier it has for webhooks, and the session's and
 * stream's ids.
 */
export function upgradeHeaders(
  options: Pick<AppSocketOptions, 'url' | 'streamId' | 'sessionId' | 'secret'>,
  now = Date.now(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const { streamId, url, secret } = options;
  return {
    'user-agent': 'voicegw-media-streams',
    'webhook-id': streamId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signWebhook(secret, streamId, timestamp, Buffer.from(url)),
    'x-voicegw-session-uuid': options.sessionId,
    'x-voicegw-stream-id': streamId,
  };
}

/**
 * Opens the WebSocket to the application, as Twilio connects to an app's stream URL: the host is
 * resolved once, and refused when an address it resolves to is forbidden (unless allowed), the
 * socket connecting to the address that was checked. Resolves once open or failed; never
 * rejects. Anything but a 101 answer is a failure ("HTTP 403"); redirects are not followed.
 */
export function connectApp(options: AppSocketOptions): Promise<AppConnection> {
  const { url, allowPrivate, signal } = options;
  if (signal.aborted) return Promise.resolve(failed(CONNECT_FAILURES.aborted));
  if (!allowPrivate && literalRefusal(new URL(url).hostname) !== undefined) {
    return Promise.resolve(failed(CONNECT_FAILURES.forbidden));
  }
  const settings: ClientOptions & Pick<ClientRequestArgs, 'lookup'> & { closeTimeout: number } = {
    headers: upgradeHeaders(options),
    perMessageDeflate: false,
    followRedirects: false,
    maxPayload: MAX_APP_MESSAGE_BYTES,
    // ws's own option (its types lag): a close the app never answers is cut off after this.
    closeTimeout: CLOSE_TIMEOUT_MS,
    lookup: vettedLookup(options.resolve ?? systemResolver, allowPrivate),
  };
  const socket = new WebSocket(url, settings);
  return new Promise<AppConnection>((resolve) => {
    const timer = setTimeout(() => settle(failed(CONNECT_FAILURES.timedOut)), options.timeoutMs);
    const onOpen = (): void => settle({ ok: true, socket });
    const onError = (err: Error): void => settle(failed(describe(err)));
    const onClose = (): void => settle(failed('closed before it opened'));
    const onResponse = (request: ClientRequest, response: IncomingMessage): void => {
      settle(failed(`HTTP ${response.statusCode ?? 0}`));
      request.destroy();
    };
    const onAbort = (): void => settle(failed(CONNECT_FAILURES.aborted));
    function settle(outcome: AppConnection): void {
      clearTimeout(timer);
      socket.off('open', onOpen);
      socket.off('error', onError);
      socket.off('close', onClose);
      socket.off('unexpected-response', onResponse);
      signal.removeEventListener('abort', onAbort);
      if (!outcome.ok) {
        // A late error of the socket being torn down must not go unhandled.
        socket.on('error', ignore);
        socket.terminate();
      }
      resolve(outcome);
    }
    socket.on('open', onOpen);
    socket.on('error', onError);
    socket.on('close', onClose);
    socket.on('unexpected-response', onResponse);
    signal.addEventListener('abort', onAbort);
  });
}

const failed = (reason: string): AppConnection => ({ ok: false, reason });

const ignore = (): void => undefined;

function describe(err: Error): string {
  const { code } = err as NodeJS.ErrnoException;
  if (code === FORBIDDEN_ADDRESS_CODE) return CONNECT_FAILURES.forbidden;
  if (code === 'ECONNREFUSED') return CONNECT_FAILURES.refused;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return CONNECT_FAILURES.unresolvable;
  if (code === 'ETIMEDOUT' || /timed out/i.test(err.message)) return CONNECT_FAILURES.timedOut;
  return code ? `connection failed (${code})` : `connection failed (${err.message})`;
}
