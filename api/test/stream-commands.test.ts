import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  adminRequest,
  commandsFor,
  createTenant,
  json,
  liveNode,
  seedSession,
  useApiWithNode,
  withApi,
  type TestApi,
  type TestTenant,
} from './helpers.js';

// The api side of media streams: stream/start and stream/stop, their validation, the url rules
// they share with webhook_url, and one stream per session, decided in sessionCommands-n.lua.

const { api, tenant, node } = useApiWithNode();

/** A public address, so that no test depends on DNS to be accepted. */
const AGENT = 'wss://93.184.216.34/agent';

function post(
  session: string,
  command: 'stream/start' | 'stream/stop',
  body?: unknown,
  on: TestApi = api,
  as: TestTenant = tenant,
) {
  return on.app.inject({
    method: 'POST',
    url: `/api/v1/sessions/${session}/commands/${command}`,
    headers: { ...as.headers, ...(body === undefined ? {} : json) },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

const newSession = () => seedSession(api, tenant, node.prefix);
const sessionCommands = async (session: string, on: TestApi = api, prefix = node.prefix) =>
  (await commandsFor(on, prefix)).filter((c) => c.kind === 'session' && c.session_id === session);
const streamOf = (session: string) => api.redis.hget(api.keys.session(session), 'stream');
/** As if the stream/start cooldown had passed. */
const coolDown = (session: string) => api.redis.del(api.keys.cooldown('sess', session, 'stream'));
/** As the media node does when the stream ends. */
const streamEnded = (session: string) => api.redis.hdel(api.keys.session(session), 'stream');

const deferred = {
  operation_id: expect.stringMatching(
    /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/,
  ),
  status: 'in_progress',
  timeout_ms: 2000,
};
const refused = (error: string, code: string) => ({ success: false, error, code });

describe('stream/start', () => {
  it('answers 202 with the deferred envelope and enqueues the defaults filled in', async () => {
    const session = await newSession();
    const res = await post(session, 'stream/start', { url: AGENT });
    expect([res.statusCode, res.json()]).toEqual([202, deferred]);
    const { operation_id: operationId } = res.json<{ operation_id: string }>();
    expect(await sessionCommands(session)).toEqual([
      {
        kind: 'session',
        command: 'stream/start',
        session_id: session,
        app_id: tenant.appId,
        operation_id: operationId,
        command_uid: expect.any(String),
        args: { url: AGENT, track: 'inbound', bidirectional: false },
        issued_at: expect.any(Number),
      },
    ]);
    // The running stream's id is its stream/start's operation_id.
    expect(await streamOf(session)).toBe(operationId);
  });

  it('enqueues track, bidirectional and custom_parameters as given', async () => {
    const session = await newSession();
    const custom_parameters = Object.fromEntries(
      Array.from({ length: 16 }, (_, i) => [`k.${i}_-${'x'.repeat(58)}`, 'v'.repeat(256)]),
    );
    const body = { url: 'ws://93.184.216.34:8080/a?b=c', track: 'both', bidirectional: false };
    const res = await post(session, 'stream/start', { ...body, custom_parameters });
    expect(res.statusCode).toBe(202);
    expect((await sessionCommands(session)).at(-1)).toMatchObject({
      command: 'stream/start',
      args: { ...body, custom_parameters },
    });
  });

  describe('answers 400 for a bad field, naming it', () => {
    const tooMany = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
    const cases: [string, unknown, string, string][] = [
      ['no url', {}, 'url is required', 'validation_failed'],
      [
        'an https url',
        { url: 'https://x.example/a' },
        'url has an invalid format',
        'validation_failed',
      ],
      [
        'a url with a space',
        { url: 'wss://x.example/a b' },
        'url has an invalid format',
        'validation_failed',
      ],
      [
        'a url over 2048 characters',
        { url: `wss://x.example/${'a'.repeat(2033)}` },
        'url must NOT have more than 2048 characters',
        'validation_failed',
      ],
      [
        'a url that does not parse',
        { url: 'wss://[::1/a' },
        'url must be a valid ws or wss URL',
        'invalid_stream_url',
      ],
      [
        'an unknown track',
        { url: AGENT, track: 'inbound_track' },
        'track must be equal to one of the allowed values',
        'validation_failed',
      ],
      [
        'a non-boolean bidirectional',
        { url: AGENT, bidirectional: 'true' },
        'bidirectional must be boolean',
        'validation_failed',
      ],
      [
        'custom_parameters that are not an object',
        { url: AGENT, custom_parameters: ['a'] },
        'custom_parameters must be object',
        'validation_failed',
      ],
      [
        '17 custom_parameters',
        { url: AGENT, custom_parameters: tooMany },
        'custom_parameters must NOT have more than 16 properties',
        'validation_failed',
      ],
      [
        'a custom parameter key with a space',
        { url: AGENT, custom_parameters: { 'bad key': 'v' } },
        "custom_parameters has an invalid key 'bad key'",
        'validation_failed',
      ],
      [
        'a custom parameter key over 64 characters',
        { url: AGENT, custom_parameters: { ['k'.repeat(65)]: 'v' } },
        `custom_parameters has an invalid key '${'k'.repeat(65)}'`,
        'validation_failed',
      ],
      [
        'a custom parameter value over 256 characters',
        { url: AGENT, custom_parameters: { k: 'v'.repeat(257) } },
        'custom_parameters.k must NOT have more than 256 characters',
        'validation_failed',
      ],
      [
        'a custom parameter value that is not a string',
        { url: AGENT, custom_parameters: { k: 1 } },
        'custom_parameters.k must be string',
        'validation_failed',
      ],
      [
        'an unknown field',
        { url: AGENT, codec: 'opus' },
        "body must not have property 'codec'",
        'validation_failed',
      ],
      [
        'a bad command_uid',
        { url: AGENT, command_uid: 'has space' },
        'Invalid command_uid format',
        'invalid_command_uid',
      ],
      [
        'a bidirectional stream of the outbound track',
        { url: AGENT, track: 'outbound', bidirectional: true },
        'A bidirectional stream carries the inbound track only',
        'bidirectional_track',
      ],
      [
        'a bidirectional stream of both tracks',
        { url: AGENT, track: 'both', bidirectional: true },
        'A bidirectional stream carries the inbound track only',
        'bidirectional_track',
      ],
    ];

    it.each(cases)('%s', async (_name, body, message, code) => {
      const session = await newSession();
      const res = await post(session, 'stream/start', body);
      expect([res.statusCode, res.json()]).toEqual([400, refused(message, code)]);
      expect(await sessionCommands(session)).toEqual([]);
      expect(await streamOf(session)).toBeNull();
    });

    it('stream/stop: an unknown field', async () => {
      const res = await post(await newSession(), 'stream/stop', { url: AGENT });
      expect([res.statusCode, res.json()]).toEqual([
        400,
        refused("body must not have property 'url'", 'validation_failed'),
      ]);
    });
  });
});

describe('one media stream per session', () => {
  it('a second stream/start while one runs answers 409 and changes nothing', async () => {
    const session = await newSession();
    const first = await post(session, 'stream/start', { url: AGENT });
    expect(first.statusCode).toBe(202);
    await coolDown(session);
    const second = await post(session, 'stream/start', { url: AGENT, track: 'both' });
    expect([second.statusCode, second.json()]).toEqual([
      409,
      refused('Session already has a media stream', 'stream_already_running'),
    ]);
    expect(await sessionCommands(session)).toHaveLength(1);
    expect(await streamOf(session)).toBe(first.json().operation_id);
  });

  it('stream/stop without a stream answers 409', async () => {
    const session = await newSession();
    const res = await post(session, 'stream/stop');
    expect([res.statusCode, res.json()]).toEqual([
      409,
      refused('Session has no media stream', 'no_stream'),
    ]);
    expect(await sessionCommands(session)).toEqual([]);
  });

  it('stream/stop with one answers 202; the stream is the node’s to clear', async () => {
    const session = await newSession();
    const start = await post(session, 'stream/start', { url: AGENT });
    await coolDown(session);
    const stop = await post(session, 'stream/stop');
    expect([stop.statusCode, stop.json()]).toEqual([202, deferred]);
    expect((await sessionCommands(session)).at(-1)).toMatchObject({
      command: 'stream/stop',
      operation_id: stop.json().operation_id,
      args: {},
    });
    expect(await streamOf(session)).toBe(start.json().operation_id);
  });

  it('once the stream has ended, a new one starts', async () => {
    const session = await newSession();
    expect((await post(session, 'stream/start', { url: AGENT })).statusCode).toBe(202);
    await streamEnded(session);
    await coolDown(session);
    const again = await post(session, 'stream/start', { url: AGENT });
    expect(again.statusCode).toBe(202);
    expect(await streamOf(session)).toBe(again.json().operation_id);
  });

  it('stream/start and stream/stop share the stream cooldown: 429 within 1 s', async () => {
    const session = await newSession();
    expect((await post(session, 'stream/start', { url: AGENT })).statusCode).toBe(202);
    const stop = await post(session, 'stream/stop');
    expect([stop.statusCode, stop.json()]).toEqual([
      429,
      refused('Command rate limited', 'command_rate_limited'),
    ]);
    expect(await sessionCommands(session)).toHaveLength(1);
  });

  it('a repeated command_uid answers the original 202, with no second stream', async () => {
    const session = await newSession();
    const body = { url: AGENT, command_uid: 'stream-1' };
    const first = await post(session, 'stream/start', body);
    await coolDown(session);
    const again = await post(session, 'stream/start', body);
    expect([again.statusCode, again.json()]).toEqual([202, first.json()]);
    expect(await sessionCommands(session)).toHaveLength(1);
    expect(await streamOf(session)).toBe(first.json().operation_id);
  });

  it("another app's session answers 403, an unknown one 404", async () => {
    const other = await createTenant(api);
    const session = await newSession();
    const foreign = await post(session, 'stream/start', { url: AGENT }, api, other);
    expect([foreign.statusCode, foreign.json()]).toEqual([
      403,
      refused('Session belongs to a different application', 'session_forbidden'),
    ]);
    const unknown = await post(`${node.prefix}-${randomUUID()}`, 'stream/stop');
    expect([unknown.statusCode, unknown.json()]).toEqual([
      404,
      refused('Session not found', 'session_not_found'),
    ]);
    expect(await streamOf(session)).toBeNull();
  });
});

describe('the url rules of webhook_url', () => {
  /**
   * stream/start of each url on a fresh api with ALLOW_HTTP_WEBHOOKS and
   * ALLOW_LOCALHOST_WEBHOOKS as given: what each answered and whether it was enqueued.
   */
  function startOn(http: boolean, local: boolean, urls: readonly string[]) {
    const env = { ALLOW_HTTP_WEBHOOKS: String(http), ALLOW_LOCALHOST_WEBHOOKS: String(local) };
    return withApi(env, async (bare) => {
      const who = await createTenant(bare);
      const prefix = await liveNode(bare);
      const answers = [];
      for (const url of urls) {
        const session = await seedSession(bare, who, prefix);
        const res = await post(session, 'stream/start', { url }, bare, who);
        const enqueued = (await sessionCommands(session, bare, prefix)).length;
        answers.push({ url, status: res.statusCode, body: res.json<unknown>(), enqueued });
      }
      return answers;
    });
  }
  const accepted = (url: string) => ({ url, status: 202, body: deferred, enqueued: 1 });
  const refusedWith = (error: string) => (url: string) => ({
    url,
    status: 400,
    body: refused(error, 'invalid_stream_url'),
    enqueued: 0,
  });
  const PRIVATE = [
    'wss://10.0.0.5/agent',
    'wss://127.0.0.1:9000/agent',
    'wss://[::1]/agent',
    'wss://169.254.169.254/latest',
    'wss://localhost/agent',
  ];

  it('ws:// is refused unless ALLOW_HTTP_WEBHOOKS; wss:// is accepted', async () => {
    const PLAIN = 'ws://93.184.216.34/agent';
    expect(await startOn(false, false, [PLAIN, AGENT])).toEqual([
      refusedWith('url must use wss')(PLAIN),
      accepted(AGENT),
    ]);
    expect(await startOn(true, false, [PLAIN])).toEqual([accepted(PLAIN)]);
  });

  it('a private, loopback or link-local address is refused unless ALLOW_LOCALHOST_WEBHOOKS', async () => {
    expect(await startOn(false, false, PRIVATE)).toEqual(
      PRIVATE.map(refusedWith('url must not resolve to a private, loopback or link-local address')),
    );
    expect(await startOn(false, true, PRIVATE)).toEqual(PRIVATE.map(accepted));
  });

  it('a host that does not resolve is refused, whatever is allowed', async () => {
    const url = `wss://${randomUUID()}.invalid/agent`;
    expect(await startOn(true, true, [url])).toEqual([
      refusedWith('url host does not resolve')(url),
    ]);
  });

  it('a refused url counts against the rate limits before any lookup; an accepted start once', async () => {
    const limited = await createTenant(api, { rate_limit: 2 });
    const session = await seedSession(api, limited, node.prefix);
    const start = await post(session, 'stream/start', { url: AGENT }, api, limited);
    expect(start.statusCode).toBe(202);
    const bad = await post(session, 'stream/start', { url: 'wss://x/a b' }, api, limited);
    expect(bad.statusCode).toBe(400); // the schema refuses before anything is counted
    await coolDown(session);
    await streamEnded(session);
    const unresolvable = `wss://${randomUUID()}.invalid/agent`;
    const second = await post(session, 'stream/start', { url: unresolvable }, api, limited);
    expect(second.statusCode).toBe(400);
    const third = await post(session, 'stream/start', { url: unresolvable }, api, limited);
    expect([third.statusCode, third.json()]).toEqual([
      429,
      refused('Rate limit exceeded', 'rate_limited'),
    ]);
  });
});

describe('media stream events', () => {
  it('are accepted in an app’s events whitelist', async () => {
    const appId = `streams_${randomUUID().slice(0, 8)}`;
    const events = ['stream.started', 'stream.stopped', 'stream.failed'];
    const saved = await adminRequest(api, 'POST', `/admin/apps/${appId}`, { events });
    expect(saved.statusCode).toBe(200);
    const read = await adminRequest(api, 'GET', `/admin/apps/${appId}`);
    expect(read.json()).toMatchObject({ events });
  });
});
