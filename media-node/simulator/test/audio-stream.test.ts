// uuid_audio_stream as voxcom-us/mod_audio_stream does it, against a real WebSocket server: the
// replies, the events and their bodies in each case, and the lifecycle of the stream.
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parkedInboundCall, useSimulator } from './helpers.js';
import { startPeer, streamEvent, streamEvents, type StreamPeer } from './stream-peer.js';

const fx = useSimulator();
let peer: StreamPeer;

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(() => peer.close());

const api = (cmd: string) => fx.client.api(cmd);

describe('uuid_audio_stream replies', () => {
  it('answers as the module does, wrong arguments included', async () => {
    const uuid = await parkedInboundCall(fx);
    const usage =
      '-USAGE: <uuid> [start | stop | send_text | pause | resume | graceful-shutdown ] [wss-url | path] [mono | mixed | stereo] [8000 | 16000] [metadata]\n';
    expect(await api('uuid_audio_stream')).toBe(usage);
    expect(await api(`uuid_audio_stream ${uuid}`)).toBe(usage);
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url}`)).toBe(usage);
    const failed = '-ERR Operation Failed\n';
    expect(await api(`uuid_audio_stream ${randomUUID()} start ${peer.url} mono 8k`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} pause`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} resume`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} send_text hello`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} graceful-shutdown`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} start http://127.0.0.1:1/x mono 8k`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} start ws://[::1]:1/x mono 8k`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 12000`)).toBe(failed);
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 24k`)).toBe(failed);
    // The module writes nothing for these; the event socket then says so.
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} quad 8k`)).toBe(
      '-ERR no reply\n',
    );
    expect(await api(`uuid_audio_stream ${uuid} send_text`)).toBe('-ERR no reply\n');
    // Nothing of that touched the (still unanswered) call.
    expect(fx.client.sequence(uuid)).not.toContain('CHANNEL_ANSWER');
    await api(`uuid_kill ${uuid}`);
  });

  it('start answers the call and attaches one stream; a second start is refused', async () => {
    const uuid = await parkedInboundCall(fx);
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 16000`)).toBe(
      '+OK Success\n',
    );
    const socket = await peer.next();
    await streamEvent(fx.client, uuid, 'connect');
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 8k`)).toBe(
      '-ERR Operation Failed\n',
    );
    expect(await api(`uuid_audio_stream ${uuid} send_text hello`)).toBe('+OK Success\n');
    expect(await api(`uuid_audio_stream ${uuid} pause`)).toBe('+OK Success\n');
    expect(await api(`uuid_audio_stream ${uuid} resume`)).toBe('+OK Success\n');
    expect(fx.client.sequence(uuid)).toEqual([
      'CHANNEL_CREATE',
      'CHANNEL_EXECUTE',
      'CHANNEL_PARK',
      'CHANNEL_ANSWER',
      'MEDIA_BUG_START',
      'CUSTOM(mod_audio_stream::connect)',
    ]);
    const bug = await fx.client.waitEvent('MEDIA_BUG_START', uuid);
    expect(bug['Media-Bug-Function']).toBe('audio_stream');
    expect(bug['Media-Bug-Target']).toBe('N/A');
    await expect.poll(() => socket.texts).toEqual(['hello']);
    await api(`uuid_kill ${uuid}`);
  });
});

describe('uuid_audio_stream lifecycle', () => {
  it('connect: the metadata is the first frame, then 20 ms frames at real-time pace; stop closes with no event', async () => {
    const uuid = await parkedInboundCall(fx);
    const meta = `{"session": "s1", "q": "a b"}`;
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url}/x mono 16k ${meta}`)).toBe(
      '+OK Success\n',
    );
    const socket = await peer.next();
    expect(socket.path).toBe('/stream/x');
    const connect = await streamEvent(fx.client, uuid, 'connect');
    expect(connect._body).toBe('{"status":"connected"}');
    expect(connect['Event-Calling-Function']).toBe('responseHandler');
    expect(connect['Channel-Call-UUID']).toBe(uuid);
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, 600));
    expect(await api(`uuid_audio_stream ${uuid} stop bye`)).toBe('+OK Success\n');
    const elapsed = performance.now() - t0;
    expect(await socket.closed).toEqual({ code: 1000, reason: 'Normal closure' });
    expect(socket.texts).toEqual([meta, 'bye']);
    expect(socket.frames.every((f) => f.length === 640)).toBe(true); // 20 ms × 16 kHz × 2 bytes
    expect(socket.frames.length).toBeGreaterThan((elapsed / 20) * 0.7);
    expect(socket.frames.length).toBeLessThan((elapsed / 20) * 1.3 + 2);
    // The caller says nothing: silence.
    expect(socket.frames.every((f) => f.every((b) => b === 0))).toBe(true);
    await fx.client.waitEvent('MEDIA_BUG_STOP', uuid);
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('-ERR Operation Failed\n');
    await new Promise((r) => setTimeout(r, 100));
    expect(streamEvents(fx.client, uuid)).toEqual(['connect']);
    await api(`uuid_kill ${uuid}`);
  });

  it('a hangup closes the socket normally, with no event', async () => {
    const uuid = await parkedInboundCall(fx);
    await api(`uuid_audio_stream ${uuid} start ${peer.url} stereo 8k`);
    const socket = await peer.next();
    await streamEvent(fx.client, uuid, 'connect');
    await api(`uuid_kill ${uuid}`);
    expect(await socket.closed).toEqual({ code: 1000, reason: 'Normal closure' });
    await fx.client.waitEvent('CHANNEL_DESTROY', uuid);
    const names = fx.client.sequence(uuid);
    expect(names.indexOf('MEDIA_BUG_STOP')).toBeLessThan(names.indexOf('CHANNEL_HANGUP_COMPLETE'));
    expect(streamEvents(fx.client, uuid)).toEqual(['connect']);
    expect(socket.frames.every((f) => f.length === 640)).toBe(true); // stereo 8 kHz
  });

  it('the server closes: ::disconnect with its code and reason; the bug stays until stop', async () => {
    const uuid = await parkedInboundCall(fx);
    await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 8k`);
    const socket = await peer.next();
    await streamEvent(fx.client, uuid, 'connect');
    socket.ws.close(4000, 'bye');
    const disconnect = await streamEvent(fx.client, uuid, 'disconnect');
    expect(JSON.parse(disconnect._body ?? '')).toEqual({
      status: 'disconnected',
      message: { code: 4000, reason: 'bye' },
    });
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 8k`)).toBe(
      '-ERR Operation Failed\n',
    );
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('+OK Success\n');
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('-ERR Operation Failed\n');
    expect(streamEvents(fx.client, uuid)).toEqual(['connect', 'disconnect']);
    await api(`uuid_kill ${uuid}`);
  });

  it('the server drops TCP without a CLOSE: ::error code 1, and the module closes the stream', async () => {
    const uuid = await parkedInboundCall(fx);
    await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 8k`);
    const socket = await peer.next();
    await streamEvent(fx.client, uuid, 'connect');
    socket.ws.terminate();
    const error = await streamEvent(fx.client, uuid, 'error');
    expect(JSON.parse(error._body ?? '')).toEqual({
      status: 'error',
      message: { code: 1, error: 'Connection closed without WebSocket CLOSE (abnormal EOF)' },
    });
    await fx.client.waitEvent('MEDIA_BUG_STOP', uuid);
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('-ERR Operation Failed\n');
    await api(`uuid_kill ${uuid}`);
  });
});

describe('uuid_audio_stream connect failures: ::error, then the stream is gone', () => {
  async function failedStart(url: string): Promise<{ body: unknown; uuid: string }> {
    const uuid = await parkedInboundCall(fx);
    expect(await api(`uuid_audio_stream ${uuid} start ${url} mono 8k`)).toBe('+OK Success\n');
    const error = await streamEvent(fx.client, uuid, 'error');
    await fx.client.waitEvent('MEDIA_BUG_STOP', uuid);
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('-ERR Operation Failed\n');
    expect(streamEvents(fx.client, uuid)).toEqual(['error']);
    return { body: JSON.parse(error._body ?? ''), uuid };
  }

  it('connection refused: code 6 CONNECT_FAILED; a new start may follow', async () => {
    const closed = createTcpServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const { body, uuid } = await failedStart(`ws://127.0.0.1:${port}/x`);
    expect(body).toEqual({
      status: 'error',
      message: { code: 6, error: 'Connection refused (system error 111)' },
    });
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 8k`)).toBe('+OK Success\n');
    await peer.next();
    await streamEvent(fx.client, uuid, 'connect');
    await api(`uuid_kill ${uuid}`);
  });

  it('an upgrade answered 403: code 6, WebSocket upgrade failed', async () => {
    const http = createHttpServer((_req, res) => res.writeHead(403).end());
    http.on('upgrade', (_req, sock) =>
      sock.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n'),
    );
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    const port = (http.address() as AddressInfo).port;
    const { body, uuid } = await failedStart(`ws://127.0.0.1:${port}/x`);
    expect(body).toEqual({
      status: 'error',
      message: { code: 6, error: 'WebSocket upgrade failed' },
    });
    await api(`uuid_kill ${uuid}`);
    await new Promise((r) => http.close(r));
  });

  it('no upgrade within a second: code 10, Timeout', async () => {
    const accepted: Socket[] = [];
    const silent = createTcpServer((socket) => accepted.push(socket));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    const started = performance.now();
    const { body, uuid } = await failedStart(`ws://127.0.0.1:${port}/x`);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(body).toEqual({ status: 'error', message: { code: 10, error: 'Timeout' } });
    await api(`uuid_kill ${uuid}`);
    // The connection was accepted and never read: the module's side went away unnoticed.
    for (const socket of accepted) socket.destroy();
    await new Promise((r) => silent.close(r));
  });
});

describe('uuid_audio_stream where libwsc reads the server otherwise than ws', () => {
  /** A raw TCP server answering the upgrade with `answer`, then writing `after` to the module. */
  async function rawServer(answer: string, after?: Buffer) {
    const sockets: Socket[] = [];
    const server = createTcpServer((socket) => {
      sockets.push(socket);
      socket.on('error', () => undefined);
      socket.once('data', () => {
        socket.write(answer);
        if (after) socket.write(after);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    return {
      url: `ws://127.0.0.1:${port}/x`,
      close: () => {
        for (const socket of sockets) socket.destroy();
        return new Promise((r) => server.close(r));
      },
    };
  }
  const upgraded = (accept: string) =>
    'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    `${accept}\r\n`;

  async function started(url: string): Promise<string> {
    const uuid = await parkedInboundCall(fx);
    expect(await api(`uuid_audio_stream ${uuid} start ${url} mono 8k`)).toBe('+OK Success\n');
    return uuid;
  }
  const bodyOf = async (uuid: string, kind: string) =>
    JSON.parse((await streamEvent(fx.client, uuid, kind))._body ?? '') as unknown;

  it('a 101 with a wrong Sec-WebSocket-Accept connects; one without the header fails (code 6)', async () => {
    const wrong = await rawServer(
      upgraded('Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n'),
    );
    const uuid = await started(wrong.url);
    await streamEvent(fx.client, uuid, 'connect');
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('+OK Success\n');
    await api(`uuid_kill ${uuid}`);
    await wrong.close();

    const none = await rawServer(upgraded(''));
    const failing = await started(none.url);
    expect(await bodyOf(failing, 'error')).toEqual({
      status: 'error',
      message: { code: 6, error: 'WebSocket upgrade failed' },
    });
    await fx.client.waitEvent('MEDIA_BUG_STOP', failing);
    expect(streamEvents(fx.client, failing)).toEqual(['error']);
    await api(`uuid_kill ${failing}`);
    await none.close();
  });

  it("a frame libwsc rejects: ::error code 11 with libwsc's close code and why; the module closes the stream", async () => {
    const accept = upgraded('Sec-WebSocket-Accept: x\r\n');
    // A text frame whose bytes are not UTF-8.
    const server = await rawServer(accept, Buffer.from([0x81, 0x02, 0xff, 0xfe]));
    const uuid = await started(server.url);
    expect(await bodyOf(uuid, 'error')).toEqual({
      status: 'error',
      message: { code: 11, error: 'WebSocket invalid UTF-8 (1007): Invalid UTF-8 in text message' },
    });
    await fx.client.waitEvent('MEDIA_BUG_STOP', uuid);
    expect(streamEvents(fx.client, uuid)).toEqual(['connect', 'error']);
    await api(`uuid_kill ${uuid}`);
    await server.close();
  });

  it('a CLOSE without a code reads as 1000, one with a bad code as 1002: ::disconnect, the bug stays', async () => {
    for (const [frame, code] of [
      [Buffer.from([0x88, 0x00]), 1000],
      [Buffer.from([0x88, 0x02, 0x03, 0xe7]), 1002], // code 999
    ] as const) {
      const server = await rawServer(upgraded('Sec-WebSocket-Accept: x\r\n'), frame);
      const uuid = await started(server.url);
      expect(await bodyOf(uuid, 'disconnect')).toEqual({
        status: 'disconnected',
        message: { code, reason: '' },
      });
      expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('+OK Success\n');
      expect(streamEvents(fx.client, uuid)).toEqual(['connect', 'disconnect']);
      await api(`uuid_kill ${uuid}`);
      await server.close();
    }
  });
});

describe('uuid_audio_stream and bytes that are not UTF-8', () => {
  it('metadata goes to the server as it came (a ws server closes 1007); stop and send_text with such text write nothing', async () => {
    const uuid = await parkedInboundCall(fx);
    // The event-socket client sends U+DC80–U+DCFF as the bytes 0x80–0xff.
    const meta = '{"bad":"\udcff\udcfe"}';
    expect(await api(`uuid_audio_stream ${uuid} start ${peer.url} mono 8k ${meta}`)).toBe(
      '+OK Success\n',
    );
    await peer.next();
    const disconnect = await streamEvent(fx.client, uuid, 'disconnect');
    expect(JSON.parse(disconnect._body ?? '')).toEqual({
      status: 'disconnected',
      message: { code: 1007, reason: '' },
    });
    expect(await api(`uuid_audio_stream ${uuid} send_text \udcff`)).toBe('-ERR no reply\n');
    expect(await api(`uuid_audio_stream ${uuid} stop \udcff`)).toBe('-ERR no reply\n');
    expect(await api(`uuid_audio_stream ${uuid} stop`)).toBe('+OK Success\n');
    await api(`uuid_kill ${uuid}`);
  });
});
