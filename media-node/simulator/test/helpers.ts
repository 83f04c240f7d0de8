// Test helpers: a simulator on free ports with a connected event-socket client, and a real HTTP
// server serving generated WAV files.
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import type { AddressInfo } from 'node:net';
import { startSimulator, type Simulator } from '../src/index.js';
import { control, EslClient } from '../src/client/index.js';
import { makeToneWav } from '../src/media/wav.js';

export { control, EslClient, name, type Ev } from '../src/client/index.js';

export function startTestSimulator(): Promise<Simulator> {
  return startSimulator({ eslPort: 0, httpPort: 0 });
}

/**
 * A real HTTP server serving `/toneNs.wav` (N seconds, also `toneNms.wav`) of 440 Hz at 8 kHz,
 * `?hz=` and `?rate=` for another tone or rate, and 404 otherwise.
 */
export async function startMediaServer(): Promise<{
  base: string;
  close(): Promise<void>;
  hits: string[];
}> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const url = new URL(req.url ?? '/', 'http://media');
    const m = /^\/tone(\d+)(ms|s)\.wav$/.exec(url.pathname);
    if (!m) {
      res.writeHead(404).end('not found');
      return;
    }
    const ms = Number(m[1]) * (m[2] === 's' ? 1000 : 1);
    const rate = Number(url.searchParams.get('rate') ?? 8000);
    const body = makeToneWav(ms, rate, Number(url.searchParams.get('hz') ?? 440));
    res.writeHead(200, { 'content-type': 'audio/wav', 'content-length': body.length }).end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    base: `http://127.0.0.1:${port}`,
    hits,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** Originates a parked, answered call through loopback (as the traces do) and returns its uuid. */
export async function parkedCall(client: EslClient, uuid: string): Promise<void> {
  const res = await client.bgapi(
    `originate {origination_uuid=${uuid},origination_caller_id_number=1000,origination_caller_id_name=trace}loopback/trace_park/default &park()`,
  );
  if (res !== `+OK ${uuid}\n`) throw new Error(`originate failed: ${res}`);
  await client.waitEvent('CHANNEL_PARK', uuid);
}

/** An inbound call (control API) that the dialplan parked, unanswered; resolves to its uuid. */
export async function parkedInboundCall({ sim, client }: SimFixture): Promise<string> {
  const { json } = await control(sim, 'POST', '/sim/calls', { to: '100', from: '200' });
  const uuid = json.uuid as string;
  await client.waitEvent('CHANNEL_PARK', uuid);
  return uuid;
}

/** A simulator, a connected client and a media server for the tests of one file. */
export interface SimFixture {
  readonly sim: Simulator;
  readonly client: EslClient;
  readonly media: Awaited<ReturnType<typeof startMediaServer>>;
}

/** Starts a SimFixture before the file's tests and stops it after them. */
export function useSimulator(): SimFixture {
  const fixture = {} as { -readonly [K in keyof SimFixture]: SimFixture[K] };
  beforeAll(async () => {
    fixture.sim = await startTestSimulator();
    fixture.media = await startMediaServer();
    fixture.client = await EslClient.connect(fixture.sim.eslPort);
  });
  afterAll(async () => {
    fixture.client.close();
    await fixture.media.close();
    await fixture.sim.close();
  });
  return fixture;
}
