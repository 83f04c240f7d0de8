// The two-way stream: what the caller says goes out on the read side (the left channel of a
// stereo stream), raw streamAudio from the server is what the call hears (the right channel, and
// heard.wav), through the module's small write buffer at real-time pace.
import { existsSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, parkedInboundCall, useSimulator } from './helpers.js';
import {
  channel,
  levelAt,
  onset,
  samplesOf,
  sine,
  startPeer,
  streamAudio,
  streamEvent,
  wavSamples,
  type PeerSocket,
  type StreamPeer,
} from './stream-peer.js';

const fx = useSimulator();
let peer: StreamPeer;

beforeAll(async () => {
  peer = await startPeer();
});
afterAll(() => peer.close());

/** An answered call with a stream of `mix` at `rate` connected to the peer. */
async function streamingCall(
  mix: string,
  rate: string,
): Promise<{ uuid: string; socket: PeerSocket }> {
  const uuid = await parkedInboundCall(fx);
  expect(await fx.client.api(`uuid_audio_stream ${uuid} start ${peer.url} ${mix} ${rate}`)).toBe(
    '+OK Success\n',
  );
  const socket = await peer.next();
  await streamEvent(fx.client, uuid, 'connect');
  return { uuid, socket };
}

async function audioOf(uuid: string) {
  const { status, json } = await control(fx.sim, 'GET', `/sim/calls/${uuid}/audio`);
  expect(status).toBe(200);
  return json as {
    elapsed_ms: number;
    said: Array<{ at_ms: number; ms: number }>;
    stream: { size_ms: number; buffered_ms: number; waiting_ms: number; waits: number } | null;
  };
}

async function heard(uuid: string): Promise<Int16Array> {
  const res = await fetch(`${fx.sim.controlUrl}/sim/calls/${uuid}/heard.wav`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('audio/wav');
  expect(res.headers.get('x-heard-from-ms')).toBe('0');
  return wavSamples(Buffer.from(await res.arrayBuffer()));
}

const ms = (samples: number, rate = 8000) => (samples * 1000) / rate;

describe('stereo: left is what the caller says, right is what the call hears', () => {
  it('a said 1 kHz tone is on the left only; streamed 2 kHz audio on the right only', async () => {
    const { uuid, socket } = await streamingCall('stereo', '16k');
    // Stereo frames need a writer on the leg (as recorded: none on a plain parked call).
    await fx.client.api(`uuid_broadcast ${uuid} silence_stream://-1 aleg`);
    await fx.client.waitEvent('PLAYBACK_START', uuid);
    await new Promise((r) => setTimeout(r, 100));
    const say = await control(fx.sim, 'POST', `/sim/calls/${uuid}/say`, {
      tone: { hz: 1000, ms: 300 },
    });
    expect(say.status).toBe(202);
    await new Promise((r) => setTimeout(r, 500));
    // Interleaved stereo at the start rate: the module expects the stream's own layout.
    const reply = sine(2000, 16000 * 0.3, 16000);
    const stereo = Int16Array.from({ length: reply.length * 2 }, (_, i) =>
      i % 2 === 0 ? reply[i >> 1]! : 0,
    );
    for (let i = 0; i < stereo.length; i += 640) {
      socket.ws.send(streamAudio(stereo.subarray(i, i + 640), 16000));
    }
    await new Promise((r) => setTimeout(r, 600));
    await fx.client.api(`uuid_kill ${uuid}`);
    await socket.closed;
    expect(socket.frames.every((f) => f.length === 1280)).toBe(true); // 20 ms, 16 kHz, 2 × 2 bytes
    const all = samplesOf(Buffer.concat(socket.frames));
    const left = channel(all, 0, 2);
    const right = channel(all, 1, 2);
    const sayStart = onset(left);
    const replyStart = onset(right);
    expect(sayStart).toBeGreaterThanOrEqual(0);
    expect(replyStart).toBeGreaterThan(sayStart);
    const said = left.subarray(sayStart, sayStart + 16000 * 0.25);
    expect(levelAt(said, 1000, 16000)).toBeGreaterThan(6000);
    expect(levelAt(right.subarray(sayStart, sayStart + 16000 * 0.25), 1000, 16000)).toBeLessThan(1);
    const replied = right.subarray(replyStart, replyStart + 16000 * 0.25);
    expect(levelAt(replied, 2000, 16000)).toBeGreaterThan(6000);
    expect(levelAt(left.subarray(replyStart, replyStart + 16000 * 0.25), 2000, 16000)).toBeLessThan(
      1,
    );
    // What the call heard, at the call's 8 kHz: the reply, for its 300 ms.
    const calls = await heard(uuid);
    const start = onset(calls);
    const loud = calls.subarray(start).findLastIndex((s) => Math.abs(s) > 2000);
    expect(ms(loud)).toBeGreaterThan(280);
    expect(ms(loud)).toBeLessThan(320);
    expect(levelAt(calls.subarray(start, start + 2000), 2000, 8000)).toBeGreaterThan(6000);
  });

  it('mono sends the caller only, mixed both in one channel, each 320 bytes at 8 kHz', async () => {
    for (const mix of ['mono', 'mixed']) {
      const { uuid, socket } = await streamingCall(mix, '8k');
      await control(fx.sim, 'POST', `/sim/calls/${uuid}/say`, { tone: { hz: 1000, ms: 200 } });
      socket.ws.send(streamAudio(sine(2000, 1600, 8000), 8000));
      await new Promise((r) => setTimeout(r, 400));
      await fx.client.api(`uuid_kill ${uuid}`);
      await socket.closed;
      expect(socket.frames.every((f) => f.length === 320)).toBe(true);
      const all = samplesOf(Buffer.concat(socket.frames));
      expect(levelAt(all, 1000, 8000)).toBeGreaterThan(1000);
      const streamed = levelAt(all, 2000, 8000);
      if (mix === 'mono') expect(streamed).toBeLessThan(100);
      else expect(streamed).toBeGreaterThan(1000);
    }
  });
});

describe('what the call hears', () => {
  it('an echo bot: what the caller says (a WAV) is heard back a frame or two later, never before', async () => {
    const { uuid, socket } = await streamingCall('mono', '8k');
    socket.ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (isBinary) socket.ws.send(streamAudio(samplesOf(data), 8000));
    });
    await new Promise((r) => setTimeout(r, 200));
    const url = `${fx.media.base}/tone400ms.wav?hz=1000&rate=16000`;
    const say = await control(fx.sim, 'POST', `/sim/calls/${uuid}/say`, { url });
    expect(say.json).toMatchObject({ uuid, ms: 400, url });
    const saidAt = say.json.at_ms as number;
    await new Promise((r) => setTimeout(r, 700));
    const calls = await heard(uuid);
    const heardAt = ms(onset(calls));
    // Its frame ends ≤ 20 ms after the say begins; the echo is written at the next tick.
    expect(heardAt).toBeGreaterThan(saidAt);
    expect(heardAt).toBeLessThan(saidAt + 300);
    const tone = calls.subarray(onset(calls), onset(calls) + 2400);
    expect(levelAt(tone, 1000, 8000)).toBeGreaterThan(6000);
    expect((await audioOf(uuid)).said).toEqual([{ at_ms: saidAt, ms: 400, url }]);
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('streamed audio is heard from the tick after it arrives, at real-time pace', async () => {
    const { uuid, socket } = await streamingCall('mono', '8k');
    await new Promise((r) => setTimeout(r, 300));
    const before = (await audioOf(uuid)).elapsed_ms;
    for (let i = 0; i < 10; i++) socket.ws.send(streamAudio(sine(1000, 160, 8000), 8000));
    const after = (await audioOf(uuid)).elapsed_ms;
    await new Promise((r) => setTimeout(r, 500));
    const calls = await heard(uuid);
    const start = onset(calls);
    expect(ms(start)).toBeGreaterThanOrEqual(before);
    expect(ms(start)).toBeLessThan(after + 100);
    // 200 ms sent at once, played over 200 ms: one frame per tick, no gaps.
    const played = calls.subarray(start);
    const last = played.findLastIndex((s) => Math.abs(s) > 2000);
    expect(ms(last)).toBeGreaterThan(190);
    expect(ms(last)).toBeLessThan(205);
    // Written whole, a 20 ms frame a tick of the write thread's own timer, which started with
    // the stream: its frames need not fall on the call's 20 ms frame slots.
    const frames = Array.from({ length: 10 }, (_, i) => played.subarray(i * 160, (i + 1) * 160));
    expect(frames.every((frame) => frame.some((s) => Math.abs(s) > 2000))).toBe(true);
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('back-pressure: a burst waits for the buffer (the socket is not read), none is lost', async () => {
    const { uuid, socket } = await streamingCall('mono', '16k');
    const second = sine(500, 16000, 16000);
    for (let i = 0; i < 10; i++) socket.ws.send(streamAudio(second, 16000));
    const sentAt = (await audioOf(uuid)).elapsed_ms;
    const seen: Array<{ size_ms: number; buffered_ms: number; waiting_ms: number }> = [];
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 100));
      seen.push((await audioOf(uuid)).stream!);
    }
    // 16 kHz on an 8 kHz call: a 40 ms buffer. Of the 10 s sent, only what one read of the
    // socket brought (a message or two) waits; the rest is still in the peer's socket.
    for (const s of seen) {
      expect(s.size_ms).toBe(40);
      expect(s.buffered_ms).toBeLessThanOrEqual(40);
      expect(s.waiting_ms).toBeLessThan(3000);
    }
    expect(seen.filter((s) => s.waiting_ms > 0).length).toBeGreaterThan(seen.length / 2);
    // The message read while the buffer was full made the socket thread wait.
    expect((await audioOf(uuid)).stream?.waits).toBeGreaterThan(0);
    await fx.client.api(`uuid_audio_stream ${uuid} stop`);
    const stoppedAt = (await audioOf(uuid)).elapsed_ms;
    const calls = await heard(uuid);
    const start = onset(calls, 1000);
    const end = calls.findLastIndex((s) => Math.abs(s) > 1000);
    // Heard continuously from soon after the burst until the stop, at real-time pace.
    expect(ms(start)).toBeLessThan(sentAt + 100);
    expect(ms(end)).toBeGreaterThan(stoppedAt - 300);
    expect(ms(end)).toBeLessThanOrEqual(stoppedAt + 20);
    // No frame of it is silent: nothing was dropped or skipped.
    const quiet: number[] = [];
    for (let i = start; i + 160 <= end; i += 160) {
      if (calls.subarray(i, i + 160).every((s) => Math.abs(s) < 1000)) quiet.push(i);
    }
    expect(quiet).toEqual([]);
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('heard.wav survives the hangup; the caller cannot speak once it has hung up', async () => {
    const { uuid, socket } = await streamingCall('mono', '8k');
    socket.ws.send(streamAudio(sine(1000, 800, 8000), 8000));
    await new Promise((r) => setTimeout(r, 300));
    await fx.client.api(`uuid_kill ${uuid}`);
    await fx.client.waitEvent('CHANNEL_DESTROY', uuid);
    const calls = await heard(uuid);
    expect(levelAt(calls.subarray(onset(calls), onset(calls) + 800), 1000, 8000)).toBeGreaterThan(
      6000,
    );
    const info = await control(fx.sim, 'GET', `/sim/calls/${uuid}/audio`);
    expect(info.json).toMatchObject({ uuid, ended: true, said: [], stream: null });
    const say = await control(fx.sim, 'POST', `/sim/calls/${uuid}/say`, {
      tone: { hz: 1000, ms: 10 },
    });
    expect(say.status).toBe(404);
  });
});

describe('text frames the module does not consume', () => {
  it('other JSON and malformed streamAudio are fired as ::json with the text as body', async () => {
    const { uuid, socket } = await streamingCall('mono', '8k');
    const texts = [
      '{"type":"mark","data":{"name":"x"}}',
      'not json',
      '{"type":"streamAudio"}',
      '{"type":"streamAudio","data":{"audioDataType":"raw","sampleRate":8000,"audioData":"!!"}}',
      '{"type":"streamAudio","data":{"audioDataType":"raw","sampleRate":11025,"audioData":"AAAA"}}',
      '{"type":"streamAudio","data":{"audioDataType":"raw","sampleRate":"8000","audioData":"AAAA"}}',
      '{"type":"streamAudio","data":{"audioDataType":"flac","audioData":"AAAA"}}',
    ];
    for (const text of texts) socket.ws.send(text);
    await expect
      .poll(() =>
        fx.client.events
          .filter(
            (e) => e['Unique-ID'] === uuid && e['Event-Subclass'] === 'mod_audio_stream::json',
          )
          .map((e) => e._body),
      )
      .toEqual(texts);
    await fx.client.api(`uuid_kill ${uuid}`);
  });

  it('a non-raw audioDataType is written to a temp file and announced with ::play', async () => {
    const { uuid, socket } = await streamingCall('mono', '8k');
    const bytes = Buffer.from('RIFF fake wav');
    socket.ws.send(
      JSON.stringify({
        type: 'streamAudio',
        data: { audioDataType: 'wav', sampleRate: 8000, audioData: bytes.toString('base64') },
      }),
    );
    const play = await streamEvent(fx.client, uuid, 'play');
    const body = JSON.parse(play._body ?? '') as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['audioDataType', 'sampleRate', 'file']);
    const file = body.file as string;
    expect(file).toMatch(new RegExp(`${uuid}_0\\.tmp\\.wav$`));
    expect(readFileSync(file)).toEqual(bytes);
    await fx.client.api(`uuid_audio_stream ${uuid} stop`);
    await expect.poll(() => existsSync(file)).toBe(false);
    await fx.client.api(`uuid_kill ${uuid}`);
  });
});
