// Media streams as FreeSWITCH 1.10.12's mod_audio_stream behaves beyond what the simulator
// shows. The module buffers one 20 ms chunk and its socket thread waits while the buffer is
// full; a stop that lands then never returns (the module as published), and the event socket
// that sent it answers nothing more: the node stops it only once it has played what it was sent
// (watched on the node's own sockets). And the module's socket closes as the call hangs up,
// often before CHANNEL_HANGUP comes on the event socket: that is still a hangup. A stream the
// module closed itself (its ::error) is not stopped again: the stop would only be refused.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { WebSocket } from 'ws';
import { encodeSample } from '../../src/media-stream/g711.js';
import { answeredCall } from './calls.js';
import { startStream, StreamApp } from './stream-app.js';
import { useStack, useTenant } from './use-stack.js';

const did = '0736671000';
let app: StreamApp;
beforeAll(async () => {
  app = await StreamApp.start();
});
afterAll(() => app.close());

/** `ms` of a 1 kHz tone as μ-law, base64, in 20 ms pieces. */
function tone(ms: number): string[] {
  const pieces: string[] = [];
  for (let at = 0; at < ms * 8; at += 160) {
    const piece = Buffer.from(
      Array.from({ length: 160 }, (_, i) =>
        encodeSample(Math.round(8000 * Math.sin((2 * Math.PI * 1000 * (at + i)) / 8000))),
      ),
    );
    pieces.push(piece.toString('base64'));
  }
  return pieces;
}

/** What the node sends the module, watched until vi.restoreAllMocks(). */
interface ModuleWatch {
  /** When each chunk of audio left for the module, and on which socket. */
  readonly chunks: Array<{ readonly at: number; readonly socket: WebSocket }>;
  /** The event socket API commands, each with when it was sent. */
  readonly commands: Array<{ readonly at: number; readonly command: string }>;
}

function watchModule(esl: {
  api(command: string, timeoutMs?: number): Promise<string>;
}): ModuleWatch {
  const watch: ModuleWatch = { chunks: [], commands: [] };
  const send = Object.getOwnPropertyDescriptor(WebSocket.prototype, 'send')
    ?.value as WebSocket['send'];
  vi.spyOn(WebSocket.prototype, 'send').mockImplementation(function (this: WebSocket, ...args) {
    if (typeof args[0] === 'string' && args[0].startsWith('{"type":"streamAudio"'))
      watch.chunks.push({ at: performance.now(), socket: this });
    send.apply(this, args);
  });
  const api = esl.api.bind(esl);
  vi.spyOn(esl, 'api').mockImplementation((command, timeoutMs) => {
    watch.commands.push({ at: performance.now(), command });
    return api(command, timeoutMs);
  });
  return watch;
}

describe('media streams on the module', () => {
  const stack = useStack({ viaProxy: true, nodeEnv: { ALLOW_LOCALHOST_WEBHOOKS: 'true' } });
  const tenant = useTenant(stack, { dids: [did] });

  it("stream/stop of a bidirectional stream asks the module to stop only once it has played the audio it was sent (at least two chunks' time after the last)", async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { streamId, uid } = await startStream(stack, tenant, session, {
      url: app.url('/stop-drain'),
      bidirectional: true,
    });
    const conn = await app.connection(streamId);
    await conn.next('start');

    // When each chunk left for the module, and when the module was told to stop.
    const watch = watchModule(stack.node.esl);
    try {
      // 3 s queued: the playout is still sending when the stop comes.
      for (const payload of tone(3000)) conn.send({ event: 'media', media: { payload } });
      await new Promise((r) => setTimeout(r, 800));
      const stop = await stack.commandAfterCooldown(tenant, session, 'stream/stop');
      expect(stop.status).toBe(202);
      await stack.events.ofCommand(session, 'stream.stopped', uid);
    } finally {
      vi.restoreAllMocks();
    }
    const stoppedAt = watch.commands.find(
      (c) => c.command === `uuid_audio_stream ${uuid} stop`,
    )?.at;
    expect(watch.chunks.length).toBeGreaterThan(10);
    expect(stoppedAt).toBeDefined();
    expect(stoppedAt! - watch.chunks.at(-1)!.at).toBeGreaterThanOrEqual(40);
  });

  it('a stream the module ended itself (its ::error after the socket broke) is not stopped again: FreeSWITCH would only refuse it', async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { streamId, uid } = await startStream(stack, tenant, session, {
      url: app.url('/module-error'),
      bidirectional: true,
    });
    const conn = await app.connection(streamId);
    await conn.next('media');
    const watch = watchModule(stack.node.esl);
    try {
      conn.send({ event: 'media', media: { payload: tone(100)[0] } });
      // The node's socket to the module, found by the audio it sends there.
      const socket = await vi.waitFor(
        () => {
          expect(watch.chunks.length).toBeGreaterThan(0);
          return watch.chunks[0]!.socket;
        },
        { timeout: 3000 },
      );
      // Torn down without a close frame: the module reports ::error (1006) and closes itself.
      (socket as unknown as { _socket: { destroy(): void } })._socket.destroy();
      expect(await stack.events.ofCommand(session, 'stream.stopped', uid)).toMatchObject({
        reason: 'error',
      });
    } finally {
      vi.restoreAllMocks();
    }
    expect(watch.commands.filter((c) => c.command === `uuid_audio_stream ${uuid} stop`)).toEqual(
      [],
    );
    expect(conn.of('stop')[0]).toMatchObject({ stop: { reason: 'error' } });
  });

  it("the module's socket closing before CHANNEL_HANGUP arrives ends the stream as a hangup, not an error", async () => {
    const { session, uuid } = await answeredCall(stack, tenant, did);
    const { streamId, uid } = await startStream(stack, tenant, session, {
      url: app.url('/close-first'),
      bidirectional: true,
    });
    const conn = await app.connection(streamId);
    await conn.next('media');
    // The far end hangs up; its events are held back while the module's socket closes.
    const proxy = stack.proxy!;
    proxy.hold();
    try {
      await stack.control.hangup(uuid);
      await new Promise((r) => setTimeout(r, 300));
    } finally {
      proxy.release();
    }
    expect(await stack.events.ofCommand(session, 'stream.stopped', uid)).toMatchObject({
      reason: 'hangup',
    });
    expect(await conn.closed()).toBe(1000);
    expect(conn.of('stop')[0]).toMatchObject({ stop: { reason: 'hangup' } });
    await stack.events.of(session, 'call.hangup');
  });
});
