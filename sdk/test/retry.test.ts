import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { retryAfterMs, retryDelay, DEFAULT_RETRY } from '../src/retry.js';
import { VoiceGateway, VoiceGatewayError, type ErrorCode } from '../src/index.js';

// The SDK against a real HTTP server that answers what each test scripts: 429 and 503 with
// Retry-After, errors in the contract's shape, and what the requests carried.

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: string;
  readonly at: number;
}
type Answer = { status: number; headers?: Record<string, string>; body?: unknown };

let server: Server;
let baseUrl: string;
let answers: Answer[] = [];
let seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        at: Date.now(),
      });
      const answer = answers.shift() ?? { status: 200, body: {} };
      const text = answer.body === undefined ? '' : JSON.stringify(answer.body);
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
afterEach(() => {
  answers = [];
  seen = [];
});

const client = (retry?: ConstructorParameters<typeof VoiceGateway>[0]['retry']) =>
  new VoiceGateway({
    baseUrl,
    appId: 'app_1',
    apiKey: 'key-0123456789abcdef',
    ...(retry === undefined ? {} : { retry }),
  });
/** What a call rejected with (or, should it succeed, its result: the assertions then fail). */
const failure = (call: Promise<unknown>) => call.catch((e: unknown) => e);

const accepted = {
  operation_id: '0b6d7a4e-4b7e-4a59-9a53-8f0e0f6a1c11',
  status: 'in_progress',
  timeout_ms: 2000,
};
const limited = (retryAfter?: string): Answer => ({
  status: 429,
  ...(retryAfter === undefined ? {} : { headers: { 'retry-after': retryAfter } }),
  body: { success: false, error: 'Command rate limited', code: 'command_rate_limited' },
});

describe('retries', () => {
  it('retries a 429 after the Retry-After it was given, with the same command_uid', async () => {
    answers = [limited('1'), { status: 202, body: accepted }];
    const result = await client().sessions.playbackStop(
      'abcde-00000000-0000-4000-8000-000000000000',
    );
    expect(result).toEqual({ ...accepted, command_uid: expect.any(String) });
    expect(seen).toHaveLength(2);
    expect(seen[1]!.at - seen[0]!.at).toBeGreaterThanOrEqual(950);
    const uids = seen.map((s) => JSON.parse(s.body).command_uid);
    expect(uids[0]).toBe(result.command_uid);
    expect(uids[1]).toBe(result.command_uid);
    expect(seen[0]!.url).toBe(
      '/api/v1/sessions/abcde-00000000-0000-4000-8000-000000000000/commands/playback/stop',
    );
    expect(seen[0]!.headers).toMatchObject({
      'x-app-id': 'app_1',
      'x-api-key': 'key-0123456789abcdef',
      'content-type': 'application/json',
    });
  });

  it('retries a 503 with back-off when there is no Retry-After, up to `retries` times', async () => {
    const noCapacity = {
      status: 503,
      body: {
        success: false,
        error: 'No outbound capacity; retry with backoff',
        code: 'no_fs_capacity',
      },
    };
    answers = [noCapacity, noCapacity, noCapacity];
    const error = await failure(
      client({ retries: 2, baseDelayMs: 10 }).dial({ to: '0521234567', from: '0731234567' }),
    );
    expect(seen).toHaveLength(3);
    expect(error).toBeInstanceOf(VoiceGatewayError);
    expect(error).toMatchObject({
      status: 503,
      error: 'No outbound capacity; retry with backoff',
      code: 'no_fs_capacity',
      request: 'POST /api/v1/dial',
    });
  });

  it('keeps a command_uid the caller gave, on every attempt', async () => {
    answers = [limited('0'), { status: 202, body: accepted }];
    const result = await client().sessions.answer('abcde-x', { command_uid: 'mine-1' });
    expect(result.command_uid).toBe('mine-1');
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([
      { command_uid: 'mine-1' },
      { command_uid: 'mine-1' },
    ]);
  });

  it('does not retry with `retry: false`', async () => {
    answers = [limited('0'), { status: 202, body: accepted }];
    const error = await failure(client(false).sessions.answer('abcde-x'));
    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({
      status: 429,
      error: 'Command rate limited',
      code: 'command_rate_limited',
    });
  });

  it('does not wait for a Retry-After beyond maxDelayMs: the 429 is thrown at once', async () => {
    answers = [limited('120'), { status: 202, body: accepted }];
    const started = Date.now();
    const error = await failure(client({ maxDelayMs: 5000 }).sessions.answer('abcde-x'));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(seen).toHaveLength(1);
    expect(error).toMatchObject({ status: 429 });
  });

  it('does not retry other errors', async () => {
    answers = [
      {
        status: 404,
        body: { success: false, error: 'Session not found', code: 'session_not_found' },
      },
    ];
    const error = await failure(client().sessions.get('abcde-x'));
    expect(seen).toHaveLength(1);
    expect(error).toBeInstanceOf(VoiceGatewayError);
    expectTypeOf<VoiceGatewayError['code']>().toEqualTypeOf<ErrorCode | undefined>();
    expect(error).toMatchObject({
      status: 404,
      error: 'Session not found',
      code: 'session_not_found',
      body: { success: false, error: 'Session not found', code: 'session_not_found' },
    });
  });

  it('reports a body that is not JSON by its status text', async () => {
    answers = [{ status: 404 }];
    const error = await failure(client().sessions.recording('abcde-x', 'r1'));
    expect(error).toMatchObject({
      status: 404,
      error: 'Not Found',
      code: undefined,
      body: undefined,
    });
  });

  it('reports a request that got no answer as status 0', async () => {
    const gone = new VoiceGateway({
      baseUrl: 'http://127.0.0.1:1',
      appId: 'a',
      apiKey: 'k'.repeat(16),
    });
    const error = await failure(gone.sessions.list());
    expect(error).toMatchObject({
      status: 0,
      error: 'Request failed',
      code: undefined,
      request: 'GET /api/v1/sessions',
    });
  });
});

describe('Retry-After and back-off', () => {
  it('reads delta-seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Wed, 31 Dec 2025 23:00:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
  });

  it('backs off exponentially within maxDelayMs', () => {
    for (let attempt = 0; attempt < 8; attempt++) {
      const delay = retryDelay(DEFAULT_RETRY, attempt, undefined)!;
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThanOrEqual(
        Math.min(DEFAULT_RETRY.maxDelayMs, DEFAULT_RETRY.baseDelayMs * 2 ** attempt),
      );
    }
    expect(retryDelay(DEFAULT_RETRY, 0, 31_000)).toBeUndefined();
  });
});
