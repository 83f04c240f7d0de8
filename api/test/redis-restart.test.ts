// Redis restarted under command load, on real processes: the simulator, a media node, the api and
// the dispatcher as `npm start` runs them, Redis with AOF (written before each reply) on a port of
// its own, webhooks to a real receiver. Every process must live through it, and every command the api accepted (202) must
// get exactly one command.result.
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { wavHeader } from '@voicegw/shared';
import { freePorts } from '@voicegw/tools';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Receiver } from './dispatcher-helpers.js';
import { GatewayProcess, healthy, RestartableRedis } from './process-helpers.js';

const ADMIN = 'redis-restart-admin-key-0123456789';
const did = '0739990000';
const CALLS = 8;
/** EVENT_LEASE_TTL_MS below is 1500. */
const PAST_THE_LEASES_MS = 1500;

let redis: RestartableRedis;
let ports: Record<'redis' | 'api' | 'simHttp' | 'simEsl' | 'media' | 'dispatcher', number>;
const processes: GatewayProcess[] = [];
const receiver = new Receiver();
let audio: Server;
let audioBase: string;
const appId = `app_${randomBytes(4).toString('hex')}`;
const apiKey = `key-${randomBytes(12).toString('hex')}`;

beforeAll(async () => {
  ports = await freePorts('redis', 'api', 'simHttp', 'simEsl', 'media', 'dispatcher');
  redis = new RestartableRedis(ports.redis);
  await redis.start();
  await receiver.start();
  // 300 ms of silence, 8 kHz 16-bit mono, for playback/start.
  const wav = Buffer.concat([wavHeader(4800, 8000), Buffer.alloc(4800)]);
  audio = createServer((_req, res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(wav));
  await new Promise<void>((resolve) => audio.listen(0, '127.0.0.1', resolve));
  audioBase = `http://127.0.0.1:${(audio.address() as AddressInfo).port}`;
  const common = {
    REDIS_URL: redis.url,
    REDIS_PREFIX: `rr${randomBytes(3).toString('hex')}`,
    ALLOW_HTTP_WEBHOOKS: 'true',
    ALLOW_LOCALHOST_WEBHOOKS: 'true',
  };
  const start = (name: string, script: string, env: Record<string, string>) =>
    processes.push(new GatewayProcess(name, script, { ...common, ...env }, processes.length));
  start('simulator', 'media-node/simulator/src/main.ts', {
    SIM_ESL_PORT: String(ports.simEsl),
    SIM_HTTP_PORT: String(ports.simHttp),
    SIM_SIP_PORT: '0',
  });
  start('media-node', 'media-node/src/main.ts', {
    NODE_NAME: 'media-restart',
    FS_ESL_PORT: String(ports.simEsl),
    METRICS_PORT: String(ports.media),
    METRICS_HOST: '127.0.0.1',
    RECORDING_PORT: '0',
    DRAIN_TIMEOUT_SEC: '1',
  });
  start('api', 'api/src/server.ts', {
    PORT: String(ports.api),
    HOST: '127.0.0.1',
    ADMIN_API_KEY: ADMIN,
  });
  start('dispatcher', 'api/src/dispatcher.ts', {
    DISPATCHER_METRICS_PORT: String(ports.dispatcher),
    DISPATCHER_HOST: '127.0.0.1',
    EVENT_LEASE_TTL_MS: '1500',
    WEBHOOK_RETRY_SCHEDULE: '0,100ms,200ms,500ms,1s,1s,2s,2s',
  });
  await Promise.all(
    [ports.api, ports.media, ports.dispatcher].map((port) =>
      healthy(`http://127.0.0.1:${port}/health`, 45_000),
    ),
  );
  await admin('POST', `/admin/apps/${appId}`, {
    api_key: apiKey,
    rate_limit: 10_000,
    webhook_url: receiver.url(appId),
  });
  await admin('PUT', `/admin/apps/${appId}/dids`, [did]);
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  await redis?.close();
  await receiver.close();
  audio?.closeAllConnections();
  audio?.close();
}, 30_000);

async function admin(method: string, path: string, body: unknown): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${ports.api}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-admin-api-key': ADMIN },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
}

/** A session command through the api: its status, 0 when the request itself failed. */
async function command(session: string, name: string, body: object): Promise<number> {
  return fetch(`http://127.0.0.1:${ports.api}/api/v1/sessions/${session}/commands/${name}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-app-id': appId, 'x-api-key': apiKey },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(5000),
  }).then(
    (res) => res.status,
    () => 0,
  );
}

/** An inbound call placed through the simulator's control API; its channel UUID. */
async function call(to: string, from: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${ports.simHttp}/sim/calls`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ to, from }),
  });
  return ((await res.json()) as { uuid: string }).uuid;
}

/** The webhook bodies of one event name the receiver got, in arrival order (repeats included). */
const webhooks = (event: string): Array<Record<string, unknown>> =>
  receiver
    .of(appId)
    .map((r) => r.json as unknown as Record<string, unknown>)
    .filter((body) => body.event === event);

describe('a Redis restart under command load', () => {
  it('kills no process and loses no result: every accepted command gets exactly one command.result', async () => {
    const sessions: string[] = [];
    for (let i = 0; i < CALLS; i++) {
      const uuid = await call(did, `05${String(1e8 + i)}`);
      const callNew = () => webhooks('call.new').find((e) => String(e.session_uuid).endsWith(uuid));
      await receiver.until(() => callNew() !== undefined);
      sessions.push(String(callNew()?.session_uuid));
    }

    // Each session takes answer after answer (a deferred command, confirmed by FreeSWITCH),
    // and a playback every fifth, until told to stop.
    const accepted: string[] = [];
    let refused = 0;
    let loading = true;
    const drive = async (session: string): Promise<void> => {
      for (let n = 0; loading; n++) {
        const uid = `${session.slice(-12)}-${n}`;
        const playback = n % 5 === 4;
        const status = await command(session, playback ? 'playback/start' : 'answer', {
          command_uid: uid,
          ...(playback ? { urls: [`${audioBase}/silence-${n}.wav`] } : {}),
        });
        if (status === 202) accepted.push(uid);
        else {
          // Redis away: the api answers 5xx (or 429 for a playback too soon); try again shortly.
          if (status !== 429) refused++;
          await new Promise((r) => setTimeout(r, 50));
        }
      }
    };
    const load = Promise.all(sessions.map(drive));
    const acceptedAfter = (count: number) =>
      expect.poll(() => accepted.length, { timeout: 15_000 }).toBeGreaterThan(count);
    // Redis stays away until the api has refused commands for a while: long enough that the
    // media node's writes in flight fail too (ioredis gives up on them after one reconnect),
    // and then past the dispatcher's leases (EVENT_LEASE_TTL_MS), so that the router and the
    // shards must be taken again: a router stuck on a connection ioredis never reconnected
    // once lost every later event.
    const outage = async (): Promise<void> => {
      const from = refused;
      await expect.poll(() => refused, { timeout: 15_000 }).toBeGreaterThan(from + 3 * CALLS);
      await new Promise((resolve) => setTimeout(resolve, PAST_THE_LEASES_MS));
      await redis.start();
    };

    await acceptedAfter(20);
    await redis.stop(); // SIGTERM: Redis saves its AOF and exits
    await outage();
    await acceptedAfter(accepted.length + 40);
    await redis.kill(); // SIGKILL: every acknowledged write is in its AOF (appendfsync always)
    await outage();
    await acceptedAfter(accepted.length + 40);
    loading = false;
    await load;

    for (const session of sessions) {
      const uid = `${session.slice(-12)}-hangup`;
      expect(await command(session, 'hangup', { command_uid: uid })).toBe(202);
      accepted.push(uid);
    }
    const results = () => webhooks('command.result').map((e) => String(e.command_uid));
    await receiver.until(
      () => accepted.every((uid) => results().includes(uid)),
      30_000,
      'a command.result for every accepted command',
    );
    await receiver.until(() => webhooks('call.hangup').length === CALLS, 10_000, 'call.hangup');

    expect(
      processes.filter((p) => !p.alive).map((p) => `${p.child.name} exited ${p.code}`),
    ).toEqual([]);
    // Delivery is at least once (docs/webhooks.md): a repeat has the same webhook-id (event_id)
    // and is not another result. Each command has one result event, never two.
    const events = new Map<string, Set<string>>();
    for (const result of webhooks('command.result')) {
      const uid = String(result.command_uid);
      events.set(uid, (events.get(uid) ?? new Set()).add(String(result.event_id)));
    }
    expect(accepted.filter((uid) => events.get(uid)?.size !== 1)).toEqual([]);
    // Results of commands the api did not accept (a 5xx for a write that reached Redis) are
    // allowed, but also once each.
    expect([...events].filter(([, ids]) => ids.size > 1)).toEqual([]);
    expect(
      webhooks('call.hangup')
        .map((e) => String(e.session_uuid))
        .sort(),
    ).toEqual([...sessions].sort());
  }, 90_000);
});
