import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from '@voicegw/shared';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';

/** Where the audio of one expected stream goes. */
export interface AudioSink {
  audio(frame: Buffer): void;
}

/** A 20 ms L16 frame is 320 bytes at 8 kHz (640 at 16 kHz); anything near this is not audio. */
const MAX_MESSAGE_BYTES = 1024 * 1024;

/**
 * One stream the receiver waits for: FreeSWITCH connects to `<url>/<session id>/<recording id>`
 * once, sends L16 binary frames (and perhaps a metadata text message, ignored), and closes when
 * the stream is stopped or the call hangs up.
 */
export class ExpectedStream {
  private socket: WebSocket | undefined;
  private done = false;
  private closeWaiters: Array<() => void> = [];

  constructor(
    readonly key: string,
    private readonly sink: AudioSink,
    private readonly release: (stream: ExpectedStream) => void,
  ) {}

  get connected(): boolean {
    return this.socket !== undefined && !this.done;
  }

  /** Takes the connection; false when one was already taken (a second connection is refused). */
  attach(socket: WebSocket): boolean {
    if (this.socket || this.done) return false;
    this.socket = socket;
    socket.on('message', (data: RawData, isBinary: boolean) => {
      if (isBinary && !this.done) this.sink.audio(toBuffer(data));
    });
    socket.on('close', () => this.closed());
    socket.on('error', () => socket.terminate());
    return true;
  }

  /**
   * Resolves once FreeSWITCH has closed the stream (all its audio is in the sink), or at once if
   * it never connected; after `timeoutMs` the connection is cut and later frames are dropped.
   * The stream is no longer expected afterwards.
   */
  async end(timeoutMs: number): Promise<void> {
    if (this.socket && !this.done) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.closeWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    this.closed();
    this.socket?.terminate();
  }

  private closed(): void {
    if (this.done) return;
    this.done = true;
    this.release(this);
    for (const waiter of this.closeWaiters.splice(0)) waiter();
  }
}

/**
 * Where an upgrade under a mounted path goes: `claim` gets the rest of the path and the request,
 * and answers where its socket goes, or undefined to refuse it (404).
 */
export type UpgradeClaim = (
  rest: string,
  request: IncomingMessage,
) => ((socket: WebSocket) => void) | undefined;

/**
 * The recording receiver: a WebSocket server, as mod_audio_stream expects one, that accepts only
 * the streams record/start announced (the path carries the session id and an unguessable
 * recording id) and hands their audio to the recording's WAV writer. Other kinds of streams from
 * FreeSWITCH share its server under paths of their own (`mount`): media streams'.
 */
export class RecordingReceiver {
  private readonly expected = new Map<string, ExpectedStream>();
  private readonly mounts = new Map<string, UpgradeClaim>();
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_MESSAGE_BYTES });
  private readonly server: Server;

  constructor(
    private readonly options: { readonly host: string; readonly port: number },
    private readonly log: Logger,
  ) {
    this.server = createServer((_req, res) => {
      res.writeHead(426, { connection: 'close', upgrade: 'websocket' }).end();
    });
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(req, socket, head),
    );
  }

  /** The port it listens on (RECORDING_PORT, or the one picked for 0), once listening. */
  get port(): number {
    const address = this.server.address();
    return typeof address === 'object' && address !== null ? address.port : this.options.port;
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return this.port;
  }

  /** Upgrades whose path starts with `prefix` go to `claim`, not to the recordings. */
  mount(prefix: string, claim: UpgradeClaim): void {
    this.mounts.set(prefix, claim);
  }

  /** Announces the stream of one recording; its audio goes to `sink`. */
  expect(sessionId: string, recordingId: string, sink: AudioSink): ExpectedStream {
    const key = `${sessionId}/${recordingId}`;
    const stream = new ExpectedStream(key, sink, (s) => {
      if (this.expected.get(s.key) === s) this.expected.delete(s.key);
    });
    this.expected.set(key, stream);
    return stream;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const path = (req.url ?? '').split('?')[0] ?? '';
    for (const [prefix, claim] of this.mounts) {
      if (!path.startsWith(prefix)) continue;
      const target = claim(path.slice(prefix.length), req);
      if (target) this.wss.handleUpgrade(req, socket, head, target);
      else refuse(socket);
      return;
    }
    const stream = this.expected.get(streamKey(req.url ?? ''));
    if (!stream || stream.connected) {
      this.log.warn({ url: req.url }, 'recording stream refused: not expected');
      refuse(socket);
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      if (!stream.attach(ws)) ws.terminate();
    });
  }
}

function refuse(socket: Duplex): void {
  socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
}

/** `<session id>/<recording id>`: the last two segments of the path, whatever the base path. */
function streamKey(url: string): string {
  const path = url.split('?')[0] ?? '';
  const segments = path.split('/').filter(Boolean);
  return segments.slice(-2).join('/');
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  if (Array.isArray(data)) return Buffer.concat(data);
  return Buffer.from(data);
}
