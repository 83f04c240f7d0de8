import type { IncomingHttpHeaders } from 'node:http';
import { Agent, type Dispatcher } from 'undici';
import {
  FORBIDDEN_ADDRESS_CODE,
  literalRefusal,
  systemResolver,
  vettedLookup,
  type Resolver,
} from '@voicegw/shared';
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

/** The code of the error an attempt ends with at its deadline. */
const DEADLINE = 'ERR_WEBHOOK_DEADLINE';

const TIMEOUT_CODES = new Set([
  DEADLINE,
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const TARGETS_MAX = 10_000;
/** Bytes of a receiver's answer body read at most (its content means nothing to a webhook). */
const ANSWER_MAX = 64 * 1024;

/** Where a webhook_url sends: undici's origin and path, parsed once per URL. */
interface Target {
  readonly origin: string;
  readonly path: string;
}

/**
 * POSTs webhooks with undici: one keep-alive pool per receiver origin. Connecting is bounded by
 * `timeoutMs` (undici's timer); from the request going out on its connection to the answer's last
 * byte, one deadline of `timeoutMs` bounds the rest. undici's per-phase timers alone let a
 * receiver trickling its answer hold an in-flight slot indefinitely. Time spent waiting for a
 * free connection of the pool is ours, not the receiver's, and is not on its clock. Redirects are
 * not followed: only a 2xx counts as delivered.
 *
 * Requests go through `Agent.dispatch` with a handler of our own rather than `request()`: a
 * webhook needs the status and one header, and neither a URL parse per request nor a response
 * body stream to drain.
 */
export class WebhookSender {
  private readonly agent: Agent;
  /** Per webhook_url: where it sends, or why it is refused before any lookup. */
  private readonly targets = new Map<string, Target | string>();

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

  send(url: string, headers: Record<string, string>, body: Buffer): Promise<AttemptResult> {
    const target = this.target(url);
    if (typeof target === 'string') return Promise.resolve(failed(null, target));
    return new Promise((resolve) => {
      const delivery = new Delivery(resolve, this.o.timeoutMs);
      try {
        this.agent.dispatch(
          { origin: target.origin, path: target.path, method: 'POST', headers, body },
          delivery,
        );
      } catch (err) {
        delivery.onResponseError(undefined, err as Error);
      }
    });
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  /** Where a URL sends, or why it is refused before connecting (unparseable, forbidden IP). */
  private target(url: string): Target | string {
    let target = this.targets.get(url);
    if (target !== undefined) return target;
    if (!URL.canParse(url)) target = 'invalid webhook_url';
    else {
      const parsed = new URL(url);
      const refusal = this.o.allowPrivate ? undefined : literalRefusal(parsed.hostname);
      if (refusal !== undefined) target = refusal;
      else if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
        target = 'invalid webhook_url';
      } else target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
    }
    if (this.targets.size >= TARGETS_MAX) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }
}

/**
 * One request's undici handler: keeps the status (and Retry-After where it matters), discards
 * the response body, and resolves once with what the attempt came to. The status line decides:
 * a receiver that answered 2xx has taken the webhook, even if its connection breaks while the
 * body comes (as before it answered, an error is a failure without status). An answer body
 * longer than ANSWER_MAX, or one still coming at the deadline, is cut off with its connection,
 * so a receiver cannot hold a lane by streaming one.
 */
class Delivery implements Dispatcher.DispatchHandler {
  private status = 0;
  private retryAfter: string | undefined;
  private answered = 0;
  private settled = false;
  private deadline: NodeJS.Timeout | undefined;

  constructor(
    private readonly resolve: (result: AttemptResult) => void,
    private readonly timeoutMs: number,
  ) {}

  /**
   * undici tells the handler styles apart by this method (ours is the current one). It runs as
   * the request is written to a connected socket: the deadline starts here.
   */
  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.deadline = setTimeout(() => this.expire(controller), this.timeoutMs).unref();
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: IncomingHttpHeaders,
  ): void {
    this.status = statusCode;
    if (statusCode === 429 || statusCode === 503) this.retryAfter = header(headers['retry-after']);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.answered += chunk.length;
    if (this.answered > ANSWER_MAX) controller.abort(new Error('answer body too long'));
  }

  onResponseEnd(): void {
    this.settle(outcome(this.status, this.retryAfter));
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, err: Error): void {
    this.settle(
      this.status >= 200
        ? outcome(this.status, this.retryAfter)
        : failed(null, describe(err, this.timeoutMs)),
    );
  }

  /** At the deadline: settles as a broken connection would, and closes it. */
  private expire(controller: Dispatcher.DispatchController): void {
    const err = deadlineError(this.timeoutMs);
    this.onResponseError(controller, err);
    controller.abort(err);
  }

  private settle(result: AttemptResult): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.deadline);
    this.resolve(result);
  }
}

function deadlineError(timeoutMs: number): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`answer not over within ${timeoutMs} ms`);
  err.code = DEADLINE;
  return err;
}

function outcome(status: number, retryAfterHeader: string | undefined): AttemptResult {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  if (status === 410) return { kind: 'gone', status };
  const retryAfter = parseRetryAfter(retryAfterHeader);
  return retryAfter === undefined
    ? failed(status, `HTTP ${status}`)
    : { kind: 'failed', status, error: `HTTP ${status}`, retryAfterMs: retryAfter };
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
  if (code === FORBIDDEN_ADDRESS_CODE) return (cause ?? err).message;
  return code ? `${code}: ${err.message}` : err.message;
}
