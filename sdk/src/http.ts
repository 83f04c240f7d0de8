import { VoiceGatewayError } from './errors.js';
import {
  RETRIED_STATUSES,
  retryAfterMs,
  retryDelay,
  retryOptions,
  type RetryOptions,
} from './retry.js';

export interface HttpOptions {
  /** The gateway's address, e.g. `https://voice.example.com`. */
  readonly baseUrl: string;
  /** 429/503 retries with back-off honouring Retry-After; `false` turns them off. */
  readonly retry?: Partial<RetryOptions> | false;
  /** Per-attempt timeout in ms (default 30 000). */
  readonly timeoutMs?: number;
  /** A fetch implementation; the global one by default. */
  readonly fetch?: typeof fetch;
}

export interface Request {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  readonly path: string;
  readonly query?: Readonly<Record<string, string | number | undefined>>;
  /** JSON body; `undefined` sends none. */
  readonly body?: unknown;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The transport both clients share: auth headers, JSON, typed errors and 429/503 retries. */
export class Http {
  private readonly baseUrl: string;
  private readonly retry: RetryOptions;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(
    options: HttpOptions,
    private readonly headers: Readonly<Record<string, string>>,
  ) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retry = retryOptions(options.retry);
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Sends a request and parses its 2xx JSON answer. */
  async json<T>(request: Request): Promise<T> {
    const res = await this.send(request);
    return (await res.json()) as T;
  }

  /** Sends a request and returns its 2xx response (e.g. a WAV to stream). */
  async send(request: Request): Promise<Response> {
    const url = this.url(request);
    const label = `${request.method} ${request.path}`;
    for (let attempt = 0; ; attempt++) {
      const res = await this.attempt(url, request, label);
      if (res.ok) return res;
      const error = await errorOf(res, label);
      if (!RETRIED_STATUSES.has(res.status) || attempt >= this.retry.retries) throw error;
      const delay = retryDelay(this.retry, attempt, retryAfterMs(res.headers.get('retry-after')));
      if (delay === undefined) throw error;
      await sleep(delay);
    }
  }

  /** An absolute URL the gateway gave (a recording_url), fetched with these credentials. */
  async sendUrl(url: string): Promise<Response> {
    const { pathname, search } = new URL(url);
    return this.send({ method: 'GET', path: pathname + search });
  }

  private url(request: Request): string {
    const url = new URL(this.baseUrl + request.path);
    for (const [name, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  private async attempt(url: string, request: Request, label: string): Promise<Response> {
    const hasBody = request.body !== undefined;
    try {
      return await this.fetch(url, {
        method: request.method,
        headers: { ...this.headers, ...(hasBody ? { 'content-type': 'application/json' } : {}) },
        ...(hasBody ? { body: JSON.stringify(request.body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (cause) {
      throw new VoiceGatewayError(0, 'Request failed', undefined, label, { cause });
    }
  }
}

async function errorOf(res: Response, label: string): Promise<VoiceGatewayError> {
  const text = await res.text().catch(() => '');
  let body: Record<string, unknown> | undefined;
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: an expired recording's bare 404, a proxy's page.
  }
  const message = typeof body?.error === 'string' ? body.error : res.statusText || 'Error';
  return new VoiceGatewayError(res.status, message, body, label);
}
