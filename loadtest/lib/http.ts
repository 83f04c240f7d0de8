import { check } from 'k6';
import http, { type Response } from 'k6/http';
import { adminKey, target } from './env.ts';

/** How an application authenticates (`X-App-ID`, `X-API-Key`). */
export interface AppAuth {
  readonly id: string;
  readonly key: string;
}

export type Headers = Record<string, string>;

const JSON_TYPE: Headers = { 'Content-Type': 'application/json' };

export const appHeaders = (app: AppAuth, json = false): Headers => ({
  'X-App-ID': app.id,
  'X-API-Key': app.key,
  ...(json ? JSON_TYPE : {}),
});

export const adminHeaders = (json = false): Headers => ({
  'X-Admin-API-Key': adminKey(),
  ...(json ? JSON_TYPE : {}),
});

export const jsonHeaders = (): Headers => ({ ...JSON_TYPE });

/**
 * Statuses that are an expected answer while polling (they do not count in `http_req_failed`):
 * a session not yet written answers 404 until the media node has taken the call. Built in the
 * init context, as k6 recommends for response callbacks.
 */
export const ACCEPTED_OR_NOT_YET = http.expectedStatuses(202, 404);
export const FOUND_OR_NOT_YET = http.expectedStatuses(200, 404);

interface RequestOptions {
  /** Tag `name` of the request: k6 groups metrics by it instead of by URL (URLs hold ids). */
  readonly name: string;
  readonly headers: Headers;
  readonly expected?: ReturnType<typeof http.expectedStatuses>;
  readonly timeout?: string;
}

function params(options: RequestOptions) {
  return {
    headers: options.headers,
    tags: { name: options.name },
    timeout: options.timeout ?? '10s',
    ...(options.expected ? { responseCallback: options.expected } : {}),
  };
}

const body = (value: unknown): string | null =>
  value === undefined ? null : JSON.stringify(value);

/** Requests to a base URL (the api, the simulator or the receiver), each with a `name` tag. */
export function client(base: string) {
  return {
    post: (path: string, payload: unknown, options: RequestOptions): Response =>
      http.post(base + path, body(payload), params(options)),
    put: (path: string, payload: unknown, options: RequestOptions): Response =>
      http.put(base + path, body(payload), params(options)),
    get: (path: string, options: RequestOptions): Response =>
      http.get(base + path, params(options)),
    del: (path: string, options: RequestOptions): Response =>
      http.del(base + path, null, params(options)),
  };
}

export const api = client(target.baseUrl);

/** A string field of a JSON answer (gjson path, e.g. `session_uuid`), or '' when absent. */
export function field(res: Response, path: string): string {
  try {
    const value = res.json(path);
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}

/** The body as text, shortened, for messages (k6 bodies may be binary or absent). */
export const bodyText = (res: Response): string =>
  typeof res.body === 'string' ? res.body.slice(0, 300) : '';

let logged = 0;
const MAX_LOGGED_PER_VU = 5;

/**
 * A check named after what was expected; the first few failures of each VU are printed with
 * their body, so a broken run says why without flooding the console.
 */
export function expectStatus(res: Response, status: number, what: string): boolean {
  const ok = check(res, { [`${what} → ${status}`]: (r) => r.status === status });
  if (!ok && logged < MAX_LOGGED_PER_VU) {
    logged++;
    console.warn(`${what}: expected ${status}, got ${res.status} ${res.error} ${bodyText(res)}`);
  }
  return ok;
}
