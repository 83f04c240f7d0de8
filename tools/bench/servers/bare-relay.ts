import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeL16, Pacer, Playout } from '@voicegw/media-node';
import { EslClient } from '@voicegw/simulator/client';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { wsText as text } from '../lib/ws-text.js';
import { answerMemoryRequests, serveUntilStopped } from './protocol.js';

/**
 * The media-streams scenario's baseline: the least a program needs to relay a call's audio
 * between FreeSWITCH's mod_audio_stream and an application's WebSocket, and nothing else (no
 * Redis, no signatures, no marks, no limits). `POST /streams {uuid, url}` connects to the app,
 * then has FreeSWITCH stream the call to `/fs/<uuid>` over a bare event socket; L16 frames go
 * out as μ-law JSON media frames, and the app's media comes back as `streamAudio`, played by the
 * media node's own playout on one pacer for every stream: one 20 ms chunk a tick, and what late
 * ticks leave queued dropped as the node drops it, so that both sides keep the same latency.
 */
interface Relay {
  readonly app: WebSocket;
  fs: WebSocket | undefined;
  chunk: number;
  playout: Playout | undefined;
}

const relays = new Map<string, Relay>();
const pacer = new Pacer((err) => console.error(err));
const esl = await EslClient.connect(Number(process.env.BENCH_ESL_PORT), {
  password: process.env.BENCH_ESL_PASSWORD ?? 'ClueCon',
  events: ['CHANNEL_HANGUP_COMPLETE'],
  record: false,
});
const fsSockets = new WebSocketServer({ noServer: true });
const server = createServer((req, res) => void handle(req, res));
server.on('upgrade', (req, socket, head) => {
  const relay = relays.get((req.url ?? '').replace('/fs/', ''));
  if (!relay || relay.fs) return socket.end('HTTP/1.1 404 Not Found\r\n\r\n');
  fsSockets.handleUpgrade(req, socket, head, (ws) => attachFs(relay, ws));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const port = (server.address() as AddressInfo).port;

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    const { uuid, url } = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, string>;
    await start(String(uuid), String(url));
    res.writeHead(200).end();
  } catch (err) {
    res.writeHead(500).end(err instanceof Error ? err.message : String(err));
  }
}

async function start(uuid: string, url: string): Promise<void> {
  const app = new WebSocket(url);
  await new Promise((resolve, reject) => {
    app.once('open', resolve);
    app.once('error', reject);
  });
  const relay: Relay = { app, fs: undefined, chunk: 0, playout: undefined };
  relays.set(uuid, relay);
  app.send(JSON.stringify({ event: 'start', start: { session_uuid: uuid } }));
  app.on('message', (data: RawData) => fromApp(relay, data));
  app.on('close', () => relays.delete(uuid));
  app.on('error', () => undefined);
  // The same module settings as the media node's: no deflate, no pings.
  for (const [name, value] of [
    ['STREAM_MESSAGE_DEFLATE', 'true'],
    ['STREAM_HEART_BEAT', '0'],
    ['STREAM_SUPPRESS_LOG', 'true'],
  ]) {
    await esl.api(`uuid_setvar ${uuid} ${name} ${value}`);
  }
  const reply = await esl.api(
    `uuid_audio_stream ${uuid} start ws://127.0.0.1:${port}/fs/${uuid} mono 8k`,
  );
  if (!reply.startsWith('+OK')) {
    app.close();
    throw new Error(`uuid_audio_stream: ${reply.trim()}`);
  }
}

function attachFs(relay: Relay, fs: WebSocket): void {
  relay.fs = fs;
  relay.playout = new Playout(pacer, {
    play: (l16) =>
      fs.send(
        JSON.stringify({
          type: 'streamAudio',
          data: { audioDataType: 'raw', sampleRate: 8000, audioData: l16.toString('base64') },
        }),
      ),
    marked: () => undefined,
    dropped: () => undefined,
  });
  fs.on('message', (data: RawData, isBinary: boolean) => {
    if (!isBinary || !Buffer.isBuffer(data)) return; // the metadata text frame
    relay.chunk++;
    const media = {
      event: 'media',
      media: {
        track: 'inbound',
        chunk: String(relay.chunk),
        timestamp: String((relay.chunk - 1) * 20),
        payload: encodeL16(data).toString('base64'),
      },
    };
    if (relay.app.readyState === WebSocket.OPEN) relay.app.send(JSON.stringify(media));
  });
  fs.on('close', () => {
    relay.playout?.close();
    relay.app.close(1000);
  });
  fs.on('error', () => undefined);
}

function fromApp(relay: Relay, data: RawData): void {
  const frame = JSON.parse(text(data)) as { event?: string; media?: { payload?: string } };
  if (frame.event !== 'media' || typeof frame.media?.payload !== 'string') return;
  relay.playout?.push(Buffer.from(frame.media.payload, 'base64'));
}

answerMemoryRequests();
serveUntilStopped(port, async () => {
  for (const relay of relays.values()) relay.app.terminate();
  pacer.close();
  esl.close();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});
