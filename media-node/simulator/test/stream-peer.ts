// Test side of mod_audio_stream: a real WebSocket server as the module's peer, what it received
// (text frames, binary frames with their arrival time), and audio measurements on L16 samples.
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import type { EslClient, Ev } from './helpers.js';

export interface PeerSocket {
  readonly ws: WebSocket;
  /** The upgrade request's path. */
  readonly path: string;
  readonly texts: string[];
  readonly frames: Buffer[];
  /** Resolves with the close code and reason when the module's socket closes. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

export interface StreamPeer {
  readonly url: string;
  /** The next connection (or one that came before anyone asked). */
  next(): Promise<PeerSocket>;
  close(): Promise<void>;
}

export async function startPeer(path = '/stream'): Promise<StreamPeer> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  await new Promise<void>((r) => wss.once('listening', () => r()));
  const ready: PeerSocket[] = [];
  const waiting: Array<(p: PeerSocket) => void> = [];
  wss.on('connection', (ws, req) => {
    const peer: PeerSocket = {
      ws,
      path: req.url ?? '',
      texts: [],
      frames: [],
      closed: new Promise((resolve) =>
        ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
      ),
    };
    // A frame ws rejects (text that is not UTF-8): it closes the socket with 1007 itself.
    ws.on('error', () => undefined);
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) peer.frames.push(data);
      else peer.texts.push(data.toString('utf8'));
    });
    const waiter = waiting.shift();
    if (waiter) waiter(peer);
    else ready.push(peer);
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}${path}`,
    next: () => {
      const peer = ready.shift();
      return peer ? Promise.resolve(peer) : new Promise((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise((resolve) => {
        for (const ws of wss.clients) ws.terminate();
        wss.close(() => resolve());
      }),
  };
}

/** A mod_audio_stream::<kind> event of the channel. */
export function streamEvent(client: EslClient, uuid: string, kind: string): Promise<Ev> {
  return client.waitEvent(
    'CUSTOM',
    uuid,
    (e) => e['Event-Subclass'] === `mod_audio_stream::${kind}`,
  );
}

export function streamEvents(client: EslClient, uuid: string): string[] {
  return client.events
    .filter((e) => e['Unique-ID'] === uuid && e['Event-Subclass']?.startsWith('mod_audio_stream'))
    .map((e) => e['Event-Subclass']!.slice('mod_audio_stream::'.length));
}

export function samplesOf(buf: Buffer): Int16Array {
  const out = new Int16Array(buf.length >> 1);
  for (let i = 0; i < out.length; i++) out[i] = buf.readInt16LE(i * 2);
  return out;
}

/** One channel of interleaved samples. */
export function channel(samples: Int16Array, index: number, channels: number): Int16Array {
  return samples.filter((_, i) => i % channels === index);
}

/** The level of `hz` in `samples` (Goertzel), about the tone's amplitude for a pure tone. */
export function levelAt(samples: Int16Array, hz: number, rate: number): number {
  const w = (2 * Math.PI * hz) / rate;
  const k = 2 * Math.cos(w);
  let s1 = 0;
  let s2 = 0;
  for (const x of samples) {
    const s = x + k * s1 - s2;
    s2 = s1;
    s1 = s;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return (2 * Math.sqrt(Math.max(0, power))) / Math.max(1, samples.length);
}

/** Index of the first sample louder than `threshold`, or -1. */
export function onset(samples: Int16Array, threshold = 2000): number {
  return samples.findIndex((s) => Math.abs(s) > threshold);
}

/** The samples of an 8 kHz mono WAV as the simulator writes it (44-byte header). */
export function wavSamples(wav: Buffer): Int16Array {
  return samplesOf(wav.subarray(44));
}

/** A raw streamAudio text frame of L16 samples. */
export function streamAudio(samples: Int16Array, sampleRate: number): string {
  const buf = Buffer.alloc(samples.length * 2);
  samples.forEach((s, i) => buf.writeInt16LE(s, i * 2));
  const data = { audioDataType: 'raw', sampleRate, audioData: buf.toString('base64') };
  return JSON.stringify({ type: 'streamAudio', data });
}

export function sine(hz: number, count: number, rate: number, amplitude = 8000): Int16Array {
  return Int16Array.from({ length: count }, (_, i) =>
    Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * amplitude),
  );
}
