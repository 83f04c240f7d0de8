// Replays a mod_audio_stream fixture against the simulator: its commands with the recorded gaps,
// its test server's actions on the module's WebSocket connections, then reads back the replies,
// each leg's stream events and what the module sent, normalised like the fixture.
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { decodeBytes } from '../src/esl/raw-text.js';
import { makeToneWav } from '../src/media/wav.js';
import {
  median,
  streamEvent,
  type StreamEvent,
  type StreamFixture,
  type WsConnection,
} from './fixtures/stream-trace-fixture.js';
import type { Simulator } from '../src/index.js';
import { control, type EslClient } from './helpers.js';

type EslStep = Extract<StreamFixture['steps'][number], { esl: string }>;

export interface StreamReplay {
  readonly replies: Array<{ step: EslStep; reply: string }>;
  readonly legs: Record<string, StreamEvent[]>;
  readonly ws: WsConnection[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The recorder's raw TCP servers: one that never answers, a 404, and a 101 with a wrong accept
 * to whatever comes, the frames that follow the upgrade included: the module took that 101,
 * sent its metadata, and met the second 101's first byte, `H`, as a frame with RSV1 set.
 */
function tcpServer(kind: string): Server {
  return createServer((s: Socket) => {
    s.on('error', () => undefined);
    if (kind === 'silent') return;
    if (kind === 'http404')
      s.once('data', () =>
        s.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'),
      );
    else
      s.on('data', () =>
        s.write(
          'HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
            'Sec-WebSocket-Accept: AAAAAAAAAAAAAAAAAAAAAAAAAAA=\r\n\r\n',
        ),
      );
  });
}

async function listen(server: Server | WebSocketServer): Promise<number> {
  if (server instanceof WebSocketServer) {
    await new Promise<void>((r) => server.once('listening', () => r()));
  } else await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return (server.address() as AddressInfo).port;
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createServer();
  const port = await listen(srv);
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** A raw streamAudio message: a 1 kHz tone of `bytes` bytes of L16 at `sampleRate`. */
function audioMessage(sampleRate: number, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  for (let i = 0; i < bytes / 2; i++)
    buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 1000 * i) / sampleRate)), i * 2);
  const data = { audioDataType: 'raw', sampleRate, audioData: buf.toString('base64') };
  return JSON.stringify({ type: 'streamAudio', data });
}

/** A streamAudio message carrying a file: `data` with a short WAV as its audioData. */
function fileMessage(data: Readonly<Record<string, unknown>>): string {
  const audioData = makeToneWav(100).toString('base64');
  return JSON.stringify({ type: 'streamAudio', data: { ...data, audioData } });
}

/** `<0xff 0xfe>` in a fixture's command: those bytes (raw-text.ts). */
const rawBytes = (s: string): string =>
  s.replace(/<(0x[0-9a-f]{2}(?: 0x[0-9a-f]{2})*)>/g, (_, hex: string) =>
    decodeBytes(Buffer.from(hex.split(' ').map(Number))),
  );

/**
 * The recorder's dialplan for its loopback extensions: `tone` (a 440 Hz tone) and `silent`
 * answer at once, `ring` rings (ring_ready, park) until something answers it.
 */
const EXTENSIONS = {
  tone: { behavior: 'answer', ring_ms: 0 },
  silent: { behavior: 'answer', ring_ms: 0 },
  ring: { behavior: 'no_answer', ring_ms: 600_000 },
};

export async function replayStream(
  fixture: StreamFixture,
  sim: Simulator,
  client: EslClient,
  newUuid: () => string,
): Promise<StreamReplay> {
  for (const [ext, behavior] of Object.entries(EXTENSIONS))
    await control(sim, 'PUT', `/sim/numbers/${ext}`, behavior);
  // The recorder's ports: its raw TCP servers, a WebSocket server, or (no connection made in
  // the recording) a closed port.
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  const wsPort = await listen(wss);
  const servers: Server[] = [];
  const ports = new Map<string, number>();
  const portOf = async (rec: string): Promise<number> => {
    if (!ports.has(rec)) {
      const kind = fixture.tcp[rec];
      if (kind) {
        const srv = tcpServer(kind);
        servers.push(srv);
        ports.set(rec, await listen(srv));
      } else ports.set(rec, fixture.ws.length > 0 ? wsPort : await closedPort());
    }
    return ports.get(rec)!;
  };

  const conns: Array<WsConnection & { socket: WebSocket; times: number[] }> = [];
  wss.on('connection', (socket, req) => {
    const names = req.rawHeaders.filter((_, i) => i % 2 === 0);
    const c = {
      socket,
      path: normalize(req.url ?? ''),
      headers: names.map((h) => h.toLowerCase()).sort(),
      texts: [] as string[],
      binary: { count: 0, sizes: [] as number[] },
      pings: 0,
      closes: [] as Array<{ code: number; reason: string }>,
      times: [] as number[],
    };
    conns.push(c);
    socket.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) return void c.texts.push(normalize(data.toString('utf8')));
      c.times.push(performance.now());
      if (!c.binary.sizes.includes(data.length)) c.binary.sizes.push(data.length);
    });
    socket.on('ping', () => c.pings++);
    // A frame ws rejects (text not UTF-8): it closes with 1007 itself, as the recorder's did.
    socket.on('error', () => undefined);
    // 1006: no CLOSE frame came (the server dropped the connection itself).
    socket.on('close', (code, reason) => {
      if (code !== 1006) c.closes.push({ code, reason: reason.toString() });
    });
  });

  const labels = new Map<string, string>(); // label → simulator uuid
  const normalize = (s: string): string => {
    let out = s;
    for (const [label, uuid] of labels) out = out.replaceAll(uuid, label);
    for (const [rec, port] of ports) out = out.replaceAll(`ws://127.0.0.1:${port}`, `{ws:${rec}}`);
    return out;
  };
  const substitute = async (s: string): Promise<string> => {
    let out = s.replace(/\{A\d+\}/g, (l) => {
      if (!labels.has(l)) labels.set(l, newUuid());
      return labels.get(l)!;
    });
    out = rawBytes(out.replaceAll('{uuid}', newUuid()));
    for (const m of out.matchAll(/\{ws:(\d+)\}/g)) {
      out = out.replace(m[0], `ws://127.0.0.1:${await portOf(m[1]!)}`);
    }
    // A B leg the recorder knew without asking (from its events): its A leg's partner.
    for (const [b, n] of out.matchAll(/\{B(\d+)\}/g)) {
      const a = labels.get(`{A${n}}`);
      if (!labels.has(b) && a)
        labels.set(b, await client.api(`uuid_getvar ${a} other_loopback_leg_uuid`));
    }
    return out.replace(/\{B\d+\}/g, (l) => labels.get(l) ?? l);
  };

  const replies: StreamReplay['replies'] = [];
  // Originates run on while the recording goes on: one that rings is answered by a later step.
  const jobs: Array<Promise<void>> = [];
  try {
    for (const step of fixture.steps) {
      await sleep(step.gap);
      if ('esl' in step) {
        const line = await substitute(step.esl);
        if (line.startsWith('bgapi ')) {
          const job = client.bgapi(line.slice(6), 10_000).catch((err: unknown) => String(err));
          jobs.push(job.then((reply) => void replies.push({ step, reply: normalize(reply) })));
          continue;
        }
        const reply = await client.api(line.slice(4));
        // uuid_getvar … other_loopback_leg_uuid names the B leg: its label from now on.
        const b = /^\{(B\d+)\}$/.exec(step.reply ?? '');
        if (b && /other_loopback_leg_uuid/.test(step.esl)) labels.set(`{${b[1]}}`, reply);
        replies.push({ step, reply: normalize(reply) });
        continue;
      }
      const conn = conns[step.ws - 1]?.socket;
      if (!conn) throw new Error(`no WebSocket connection ${step.ws}`);
      if (step.text !== undefined) conn.send(step.text);
      if (step.audio) conn.send(audioMessage(step.audio.sampleRate, step.audio.bytes));
      if (step.file) conn.send(fileMessage(step.file));
      if (step.binary) conn.send(Buffer.alloc(step.binary));
      if (step.close) conn.close(step.close.code, step.close.reason);
      if (step.terminate) conn.terminate();
    }
    await Promise.all(jobs);
    // Every A leg that the recording saw destroyed, then a moment for the last frames.
    for (const [label, events] of Object.entries(fixture.legs)) {
      if (events.some((e) => e.name === 'CHANNEL_DESTROY'))
        await client.waitEvent('CHANNEL_DESTROY', labels.get(label) ?? label);
    }
    await sleep(300);
  } finally {
    for (const c of wss.clients) c.terminate();
    await new Promise<void>((r) => wss.close(() => r()));
    for (const srv of servers) srv.close();
  }

  const legs: Record<string, StreamEvent[]> = {};
  const labelOf = new Map([...labels].map(([l, u]) => [u, l]));
  for (const ev of client.events) {
    const label = labelOf.get(ev['Unique-ID'] ?? '');
    if (!label) continue;
    const out = streamEvent(ev, label, normalize);
    if (out) (legs[label] ??= []).push(out);
  }

  const ws = conns.map(({ socket: _socket, times, ...c }): WsConnection => {
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    const binary: WsConnection['binary'] = { ...c.binary, count: times.length };
    if (gaps.length > 0) {
      binary.p50Ms = Number(median(gaps).toFixed(1));
      binary.maxGapMs = Math.round(Math.max(...gaps));
    }
    return { ...c, binary };
  });
  return { replies, legs, ws };
}
