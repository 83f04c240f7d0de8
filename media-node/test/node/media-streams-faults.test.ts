// Media streams under faults: an application that stops reading, FreeSWITCH killed (kill -9) and
// restarted, a media node killed (kill -9), taken for dead while alive, restarted or drained, and
// a thousand streams in a row. For
// each: one stream.stopped or stream.failed per stream, the call unharmed (its one call.hangup),
// nothing left behind, and the session's `stream` field freed where the call survives.
// (The app closing mid-call and refusing the upgrade are in media-streams.test.ts.)
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { freePort } from '@voicegw/tools';
import { createLogger, endOrphan, LuaScripts } from '@voicegw/shared';
import { startSimulator, type Simulator } from '@voicegw/simulator';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { WebSocket } from 'ws';
import { SLOW_APP_BYTES } from '../../src/media-stream/running.js';
import { answeredCall } from './calls.js';
import { fastSweeper, mobile, SimControl, type Ev } from './harness.js';
import { startNodeProcess, startSimulatorProcess, type LoggedProcess } from './processes.js';
import { startStream, StreamApp } from './stream-app.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0736680000';
// The in-process node is also the survivor whose sweeper answers for a killed node: 5 s after
// its heartbeat is gone, long enough for a restarted node's process to start on a loaded machine
// (its sessions are ended otherwise, and the restart test meets a 404).
const stack = useStack({ nodeEnv: { ALLOW_LOCALHOST_WEBHOOKS: 'true', ...fastSweeper(5000) } });
const tenant = useTenant(stack, { dids: [did] });
const processes: LoggedProcess[] = [];
const sims: Simulator[] = [];
let app: StreamApp;
beforeAll(async () => {
  app = await StreamApp.start();
});
afterAll(async () => {
  await Promise.allSettled(processes.map((p) => p.stop()));
  await Promise.allSettled(sims.map((s) => s.close()));
  await app.close();
});

/** A node process on the test's Redis: streams to the loopback app allowed. */
async function nodeProcess(eslPort: number, env: Record<string, string> = {}) {
  const node = await startNodeProcess({
    REDIS_PREFIX: stack.redisPrefix,
    NODE_NAME: `faults-${randomUUID()}`,
    FS_ESL_PORT: String(eslPort),
    ALLOW_LOCALHOST_WEBHOOKS: 'true',
    ...env,
  });
  processes.push(node);
  const prefix = String((await node.waitFor((l) => l.msg === 'media node ready')).node);
  return { node, prefix };
}

/** An answered call on `control`'s simulator, owned by the node of `prefix`. */
async function callOn(control: SimControl, prefix: string) {
  const uuid = await control.call(did, mobile());
  const session = `${prefix}-${uuid}`;
  await stack.events.of(session, 'call.new');
  await stack.command(tenant, session, 'answer', { command_uid: 'answer' });
  await stack.events.of(session, 'call.answered');
  return { uuid, session };
}

/** A stream running on `session`: stream.started out, and its first media frame at the app. */
async function running(session: string, body: Record<string, unknown> = {}) {
  const { streamId, uid } = await startStream(stack, tenant, session, { url: app.url(), ...body });
  const conn = await app.connection(streamId, 10_000);
  await stack.events.ofCommand(session, 'stream.started', uid, 10_000);
  await conn.next('media', 10_000);
  return { streamId, uid, conn };
}

const STREAM_EVENT = /^stream\./;
const ends = (session: string, streamId: string): Ev[] =>
  stack.events
    .session(session)
    .filter((e) => e.stream_id === streamId && /^stream\.(stopped|failed)$/.test(e.event));

/** No stream.* event of the session twice (same event, same stream). */
function noDuplicates(session: string): void {
  const seen = stack.events
    .session(session)
    .filter((e) => STREAM_EVENT.test(e.event))
    .map((e) => `${e.event} ${String(e.stream_id)}`);
  expect(new Set(seen).size).toBe(seen.length);
}

async function dropped(reason: string): Promise<number> {
  const { values } = await stack.node.metrics.mediaStreamDroppedFrames.get();
  return values.find((v) => v.labels.reason === reason)?.value ?? 0;
}

/**
 * The node's two sockets of the session's running stream (the relay's own). FreeSWITCH's frames
 * are emitted on its socket faster than real time: the kernel's socket buffers (hundreds of KiB
 * on loopback) fill before the node's own buffer grows, which at 50 frames a second would take
 * minutes.
 */
function socketsOf(session: string): { fs: WebSocket; app: WebSocket } {
  type Inner = { phase: { running?: { fs: WebSocket; app: WebSocket } } };
  const relays = (stack.node.streams as unknown as { streams: Map<string, Inner> }).streams;
  const sockets = relays.get(session)?.phase.running;
  if (!sockets) throw new Error('no running stream');
  return sockets;
}

const frame20ms = Buffer.alloc(320, 0x10); // 160 samples of L16

/** Emits `count` frames from FreeSWITCH, in batches with the event loop turning between. */
async function flood(fs: WebSocket, count: number): Promise<void> {
  for (let sent = 0; sent < count; sent += 200) {
    for (let i = 0; i < 200; i++) fs.emit('message', frame20ms, true);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('an application that stops reading (its socket open)', () => {
  it('drops its frames once 512 KiB are unsent (counted), holds no more, and the call and stream/stop still work', async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { conn, uid } = await running(session);
    // The app's end of the TCP connection stops reading; the socket stays open.
    const server = (conn.socket as unknown as { _socket: { pause(): void; resume(): void } })
      ._socket;
    server.pause();
    const { fs, app: nodeSide } = socketsOf(session);
    const before = await dropped('slow_app');
    let slow = before;
    // Until the first drop: the kernel's buffers are full and the node's reached the bound.
    for (let rounds = 0; slow === before && rounds < 100; rounds++) {
      await flood(fs, 5000);
      slow = await dropped('slow_app');
    }
    expect(slow).toBeGreaterThan(before);
    // ~10 MB more of frames: every one dropped, nothing more held.
    const heap = process.memoryUsage().heapUsed;
    await flood(fs, 20_000);
    expect(await dropped('slow_app')).toBeGreaterThanOrEqual(slow + 20_000);
    expect(nodeSide.bufferedAmount).toBeLessThanOrEqual(SLOW_APP_BYTES + 1024);
    expect(process.memoryUsage().heapUsed - heap).toBeLessThan(64 * 1024 * 1024);

    const res = await stack.command(tenant, session, 'playback/pause', { command_uid: 'alive' });
    expect(res.status).toBe(202);
    expect(await stack.events.ofCommand(session, 'command.result', 'alive')).toMatchObject({
      command: 'playback.pause',
    });
    const stop = await stack.commandAfterCooldown(tenant, session, 'stream/stop', {
      command_uid: 'stop',
    });
    expect(stop.status).toBe(202);
    expect(await stack.events.ofCommand(session, 'stream.stopped', uid)).toMatchObject({
      reason: 'stopped',
    });
    expect(await stack.events.ofCommand(session, 'command.result', 'stop')).toMatchObject({
      success: true,
    });
    // The close is never answered: the node cuts the socket after its close timeout (2 s).
    await expect.poll(() => nodeSide.readyState, { timeout: 5000 }).toBe(nodeSide.CLOSED);
    server.resume();
    await conn.closed(5000);
    expect(await stack.redis.hget(stack.keys.session(session), 'stream')).toBeNull();
    const again = await running(session);
    expect(ends(session, again.streamId)).toEqual([]);
    // The call ends as usual (and leaves the node no stream for the tests after this one).
    await stack.control.hangup(uuid);
    await stack.events.of(session, 'call.hangup');
    expect(ends(session, again.streamId)).toMatchObject([{ reason: 'hangup' }]);
    expect(stack.events.session(session).filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    noDuplicates(session);
  }, 60_000);
});

describe('FreeSWITCH killed (kill -9) and restarted under a running stream', () => {
  it('one stream end, the app closed, then the call.hangup once', async () => {
    const eslPort = await freePort();
    const first = await startSimulatorProcess(eslPort);
    processes.push(first.process);
    const { node, prefix } = await nodeProcess(eslPort, { ORPHAN_TIMEOUT_MS: '120000' });
    const { session } = await callOn(first.control, prefix);
    const { streamId, conn } = await running(session, { bidirectional: true });

    await first.process.kill();
    const code = await conn.closed(10_000);
    await node.waitFor((l) => l.msg === 'FreeSWITCH connection lost; reconnecting');
    const second = await startSimulatorProcess(eslPort);
    processes.push(second.process);
    const hangup = await stack.events.of(session, 'call.hangup', 15_000);
    expect(hangup).toMatchObject({ hangup_cause: 'failed' });

    const [end, ...more] = ends(session, streamId);
    expect(more).toEqual([]);
    console.log(`FreeSWITCH killed: ${end?.event} (${String(end?.reason)}), app closed ${code}`);
    expect(end).toMatchObject({ event: 'stream.stopped', reason: 'error' });
    expect(code).toBe(1011);
    const events = stack.events.session(session);
    expect(events.indexOf(end as Ev)).toBeLessThan(events.indexOf(hangup));
    expect(events.filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    noDuplicates(session);
  }, 90_000);
});

describe('a media node killed (kill -9) with a running stream', () => {
  it("the app's socket closes; the sweeper gives stream.stopped (error), then call.hangup, each once", async () => {
    const sim = await startSimulator({ eslPort: 0, httpPort: 0 });
    sims.push(sim);
    const { node, prefix } = await nodeProcess(sim.eslPort, {
      ...fastSweeper(1500),
      HEARTBEAT_INTERVAL_MS: '300',
      HEARTBEAT_TTL_MS: '3000',
    });
    const { session } = await callOn(new SimControl(sim.controlUrl), prefix);
    const { streamId, uid, conn } = await running(session, { bidirectional: true });

    await node.kill();
    // No close frame from a dead process: the connection just goes (1006).
    expect(await conn.closed(5000)).toBe(1006);
    const hangup = await stack.events.of(session, 'call.hangup', 20_000);
    expect(hangup).toMatchObject({ hangup_cause: 'failed', duration_seconds: 0 });
    const events = stack.events.session(session);
    expect(events.filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    // The sweeper ends the stream the dead node cannot: its one end event, before call.hangup.
    const [end, ...more] = ends(session, streamId);
    expect(more).toEqual([]);
    expect(end).toMatchObject({
      event: 'stream.stopped',
      reason: 'error',
      command_uid: uid,
      duration_ms: 0,
    });
    expect(events.indexOf(end as Ev)).toBeLessThan(events.indexOf(hangup));
    noDuplicates(session);
  }, 90_000);
});

describe('a node taken for dead while its stream runs (it was only away)', () => {
  it("the sweeper's stream.stopped is the stream's one end: the node's own, later, is not published", async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { streamId, uid, conn } = await running(session);
    // What the sweeper does for a node whose heartbeat expired, while this one still runs it.
    const sweeper = {
      redis: stack.redis,
      keys: stack.keys,
      scripts: new LuaScripts(stack.redis),
      log: createLogger({ name: 'sweeper', level: 'silent' }),
      sessionGraceMs: 60_000,
    };
    expect(await endOrphan(sweeper, session, stack.node.prefix)).toBe(true);
    expect(await stack.events.ofCommand(session, 'stream.stopped', uid)).toMatchObject({
      reason: 'error',
    });
    // The node ends its stream as the channel goes: its stream.stopped finds the session ended.
    await stack.control.hangup(uuid);
    expect(await conn.closed()).toBe(1000);
    // Released once its streamEnded-2.lua has run (and published nothing).
    await expect.poll(() => stack.node.streams.size).toBe(0);
    expect(ends(session, streamId)).toMatchObject([{ reason: 'error' }]);
    expect(stack.events.session(session).filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    noDuplicates(session);
  });
});

describe('a media node restarted (SIGINT: closes at once) with a running stream', () => {
  it('ends it (error, 1011) once; the node that comes back adopts the call, which takes a new stream', async () => {
    const sim = await startSimulator({ eslPort: 0, httpPort: 0 });
    sims.push(sim);
    const name = `faults-${randomUUID()}`;
    const { node, prefix } = await nodeProcess(sim.eslPort, { NODE_NAME: name });
    const { session } = await callOn(new SimControl(sim.controlUrl), prefix);
    const { streamId, uid, conn } = await running(session, { bidirectional: true });

    await node.stop();
    expect(await conn.closed(5000)).toBe(1011);
    expect(conn.of('stop')[0]).toMatchObject({ stop: { reason: 'error' } });
    const stopped = await stack.events.ofCommand(session, 'stream.stopped', uid);
    expect(stopped.reason).toBe('error');
    expect(ends(session, streamId)).toHaveLength(1);
    expect(await stack.redis.hget(stack.keys.session(session), 'stream')).toBeNull();

    const back = await nodeProcess(sim.eslPort, { NODE_NAME: name });
    expect(back.prefix).toBe(prefix);
    await back.node.waitFor((l) => l.msg === 'resynchronised with FreeSWITCH');
    const again = await running(session);
    expect(ends(session, again.streamId)).toEqual([]);
    expect(stack.events.has(session, 'call.hangup')).toBe(false);
    noDuplicates(session);
  }, 90_000);
});

describe('a media node drained (SIGTERM) with a running stream', () => {
  it('the stream flows through the drain; at its deadline the call is hung up: stream.stopped (hangup), then call.hangup, each once', async () => {
    const sim = await startSimulator({ eslPort: 0, httpPort: 0 });
    sims.push(sim);
    const { node, prefix } = await nodeProcess(sim.eslPort, { DRAIN_TIMEOUT_SEC: '1' });
    const { session } = await callOn(new SimControl(sim.controlUrl), prefix);
    const { streamId, uid, conn } = await running(session, { bidirectional: true });

    node.child.kill('SIGTERM');
    await node.waitFor((l) => l.msg === 'draining');
    const seen = conn.of('media').length;
    await conn.until(() => conn.of('media').length >= seen + 10, 5000, 'media while draining');
    expect(await conn.closed(10_000)).toBe(1000);
    expect(conn.of('stop')[0]).toMatchObject({ stop: { reason: 'hangup' } });
    const hangup = await stack.events.of(session, 'call.hangup', 10_000);
    const stopped = await stack.events.ofCommand(session, 'stream.stopped', uid);
    expect(stopped.reason).toBe('hangup');
    await node.exited;
    const events = stack.events.session(session);
    expect(ends(session, streamId)).toHaveLength(1);
    expect(events.indexOf(stopped)).toBeLessThan(events.indexOf(hangup));
    expect(events.filter((e) => e.event === 'call.hangup')).toHaveLength(1);
    noDuplicates(session);
  }, 90_000);
});

/** Handles and requests of this process (the in-process node's included), by type. */
const resources = (): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) counts[type] = (counts[type] ?? 0) + 1;
  return counts;
};

/** A full collection, through V8's flag when the process was not started with --expose-gc. */
function collector(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

describe('leaks at scale', () => {
  it('1,000 short bidirectional streams in a row leave no stream, tick, socket or heap behind', async () => {
    const { session: id } = await answeredCall(stack, tenant, did);
    const session = stack.node.sessions.get(id);
    if (!session) throw new Error('no session');
    const { streams } = stack.node;
    const gc = collector();
    // An app of its own: the other tests' streams still running are not this test's.
    const app = await StreamApp.start();
    onTestFinished(() => app.close());
    const report = {
      started: () => Promise.resolve(),
      failed: (reason: string) => Promise.reject(new Error(reason)),
    };
    const once = async (i: number): Promise<void> => {
      const request = {
        streamId: randomUUID(),
        commandUid: `scale-${i}`,
        url: app.url('/scale'),
        track: 'inbound' as const,
        bidirectional: true,
        customParameters: {},
      };
      const { confirmed } = await session.serial(() => streams.start(session, request, report));
      await confirmed;
      const conn = await app.connection(request.streamId);
      conn.send({ event: 'media', media: { payload: Buffer.alloc(160, 0xff).toString('base64') } });
      conn.send({ event: 'mark', mark: { name: 'm' } });
      expect(await session.serial(() => streams.stop(session))).toBe(true);
    };
    // A warm-up, so that the baseline holds what the first streams create for good (pools).
    for (let i = 0; i < 20; i++) await once(i);
    await expect.poll(() => app.open).toBe(0);
    app.connections.length = 0;
    gc();
    const handles = resources();
    const heap = process.memoryUsage().heapUsed;

    const started = performance.now();
    for (let i = 0; i < 1000; i++) {
      await once(i);
      // The app's records of closed connections are the test's, not the node's.
      if (i % 100 === 99) app.connections.length = 0;
    }
    console.log(`1,000 streams in ${Math.round(performance.now() - started)} ms`);

    expect(streams.size).toBe(0);
    expect(streams.endpoint.size).toBe(0);
    expect(streams.pacer.subscribers).toBe(0);
    expect((await stack.node.metrics.mediaStreams.get()).values[0]?.value).toBe(0);
    await expect.poll(() => app.open).toBe(0);
    app.connections.length = 0;
    // At most as many: one of the baseline's may have been a socket still closing.
    await expect
      .poll(() => resources().TCPSocketWrap ?? 0)
      .toBeLessThanOrEqual(handles.TCPSocketWrap ?? 0);
    expect(resources().Timeout ?? 0).toBeLessThanOrEqual((handles.Timeout ?? 0) + 5);
    gc();
    const grown = process.memoryUsage().heapUsed - heap;
    console.log(`heap after 1,000 streams: ${Math.round(grown / 1024)} KiB over the baseline`);
    expect(grown).toBeLessThan(8 * 1024 * 1024);
  }, 120_000);
});
