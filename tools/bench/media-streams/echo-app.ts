import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeSample } from '@voicegw/media-node';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import { wsText as text } from '../lib/ws-text.js';

/**
 * The application both sides stream to, in the load generator's process so that it stamps
 * arrivals on the generator's clock: it sends every media frame's payload straight back (an echo
 * agent), notes when each frame arrived, and when a tone began (a frame with a loud sample after
 * a quiet one) and when its echo went out. A connection is known by the last segment of its
 * path, which the scenario chooses (a session id or a channel uuid).
 */
const CODE_IS_LOUD = Uint8Array.from(
  { length: 256 },
  (_, c) => +(Math.abs(decodeSample(c)) > 1000),
);

/** A tone's onset as the app saw it: the frame's arrival and its echo's departure (ms). */
export interface Onset {
  readonly arrivedAt: number;
  readonly echoedAt: number;
}

export class EchoConnection {
  /** The chunk numbers of the frames of the current window, and their arrivals, index for index. */
  chunks: number[] = [];
  arrivals: number[] = [];
  readonly onsets: Onset[] = [];
  frames = 0;
  private loud = false;

  constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: RawData) => this.onMessage(data));
    socket.on('error', () => undefined);
  }

  private onMessage(data: RawData): void {
    const arrivedAt = performance.now();
    const frame = JSON.parse(text(data)) as {
      event?: string;
      streamSid?: string;
      media?: { chunk?: string; payload?: string };
    };
    if (frame.event !== 'media' || typeof frame.media?.payload !== 'string') return;
    const { payload } = frame.media;
    this.socket.send(
      JSON.stringify({ event: 'media', streamSid: frame.streamSid, media: { payload } }),
    );
    const echoedAt = performance.now();
    this.frames++;
    this.chunks.push(Number(frame.media.chunk ?? this.frames));
    this.arrivals.push(arrivedAt);
    const loud = Buffer.from(payload, 'base64').some((code) => CODE_IS_LOUD[code] === 1);
    if (loud && !this.loud) this.onsets.push({ arrivedAt, echoedAt });
    this.loud = loud;
  }

  /** Starts a new window of arrivals. */
  resetWindow(): void {
    this.chunks = [];
    this.arrivals = [];
  }
}

export class EchoApp {
  readonly connections = new Map<string, EchoConnection>();
  private readonly wss = new WebSocketServer({ noServer: true });

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {
    server.on('upgrade', (req, socket, head) => {
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const key = (req.url ?? '').split('/').pop() ?? '';
        this.connections.set(key, new EchoConnection(ws));
      });
    });
  }

  static async start(): Promise<EchoApp> {
    const server = createServer((_req, res) => res.writeHead(426).end());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new EchoApp(server, (server.address() as AddressInfo).port);
  }

  url(path: string): string {
    return `ws://127.0.0.1:${this.port}${path}`;
  }

  async close(): Promise<void> {
    for (const client of this.wss.clients) client.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
