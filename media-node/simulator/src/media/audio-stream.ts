// One mod_audio_stream stream (the `audio_stream` media bug): a real WebSocket client that sends
// what the call says (and hears) in 20 ms L16 frames at real-time pace, writes the raw
// `streamAudio` its server sends into what the call hears, and reports through CUSTOM
// mod_audio_stream::* events. Its lifecycle is the module's: `::error` closes the stream itself;
// a server that closes the socket gets `::disconnect` and the bug stays, silent, until stop or
// hangup; stop and hangup clear the callbacks first, so no event follows them.
import { unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import type { Channel, MediaBug } from '../core/channel.js';
import type { SimContext } from '../core/context.js';
import { channelHeaders } from '../core/channel-headers.js';
import { encodeBytes } from '../esl/raw-text.js';
import { CALL_RATE, FRAME_MS, FRAME_SAMPLES, nowSample, slotOf } from './clock.js';
import { captureFrame, channelsOf, type MixType } from './stream-frames.js';
import { parseStreamMessage } from './stream-message.js';
import { StreamWriter } from './stream-writer.js';
import { libwscUpgrade } from './wsc-upgrade.js';
import {
  BUG_HEADERS,
  CONNECT_TIMEOUT_MS,
  EVENT_SITE,
  FAILURE,
  NORMAL_CLOSE,
  SEND_QUEUE_LIMIT,
  closeCodeOf,
  connectedBody,
  disconnectedBody,
  errorBody,
  frameFault,
  socketFailure,
  subclassOf,
  type StreamEvent,
  type StreamFailure,
} from './stream-protocol.js';

/** A start's arguments and the STREAM_* channel variables it read. */
export interface StreamSettings {
  readonly url: string;
  readonly mix: MixType;
  readonly rate: number;
  readonly metadata: string | undefined;
  /** STREAM_BUFFER_SIZE/20: frames per binary message, and the write buffer's length. */
  readonly bufferFrames: number;
  /** Offer permessage-deflate (unless STREAM_MESSAGE_DEFLATE is true). */
  readonly deflate: boolean;
  /** STREAM_HEART_BEAT: seconds between pings, 0 for none. */
  readonly heartBeatSec: number;
  /** STREAM_EXTRA_HEADERS. */
  readonly headers: Readonly<Record<string, string>>;
}

export interface StreamStatus {
  readonly url: string;
  readonly mix: MixType;
  readonly rate: number;
  readonly state: 'connecting' | 'connected' | 'disconnected';
  readonly paused: boolean;
  /** The write buffer: its size, what it holds, and what waits for room in it. */
  readonly size_ms: number;
  readonly buffered_ms: number;
  readonly waiting_ms: number;
  /** Messages that waited for room (each a sleep of the module's socket thread). */
  readonly waits: number;
}

type Phase =
  /** Attached, the connection not launched yet (or failing at once). */
  | { readonly name: 'starting' }
  | { readonly name: 'connecting'; readonly ws: WebSocket; readonly timeout: NodeJS.Timeout }
  | {
      readonly name: 'connected';
      readonly ws: WebSocket;
      readonly ping: NodeJS.Timeout | undefined;
    }
  /** The server closed the socket: the bug stays attached, sending nothing. */
  | { readonly name: 'disconnected' }
  | { readonly name: 'closed' };

export class AudioStream implements MediaBug {
  private phase: Phase = { name: 'starting' };
  private readonly writer: StreamWriter;
  /**
   * The stream's timer: each tick sends the caller's frames read since the last and runs the write
   * thread's ticks that have come (at their own times, StreamWriter).
   */
  private readonly clock: NodeJS.Timeout;
  private nextReadSlot = 0;
  private paused = false;
  private batch: Buffer[] = [];
  /** Frames held while an injection waits (the module's socket thread is asleep then). */
  private outbox: Buffer[] = [];
  private readonly files: string[] = [];
  /** Slots this stream's write thread wrote into the call (a writer for mixed/stereo). */
  private readonly written = new Set<number>();

  constructor(
    private readonly ctx: SimContext,
    readonly ch: Channel,
    readonly settings: StreamSettings,
  ) {
    const capacity = ((FRAME_SAMPLES * settings.rate) / CALL_RATE) * settings.bufferFrames;
    this.writer = new StreamWriter(
      capacity,
      (at, frame) => {
        // Keyed by the call's frame the write began in, as the read side takes frames.
        this.written.add(slotOf(at));
        ch.audio.hear(at, frame);
      },
      // The write thread's timer is a timerfd of its own, made as the stream starts and unrelated
      // to the read ticks that send the caller's frames: its ticks fall anywhere in a frame.
      nowSample() + Math.floor(Math.random() * FRAME_SAMPLES),
    );
    this.clock = setInterval(() => this.tick(), FRAME_MS);
  }

  status(): StreamStatus {
    const { url, mix, rate } = this.settings;
    const name = this.phase.name;
    const state = name === 'starting' ? 'connecting' : name === 'closed' ? 'disconnected' : name;
    return { url, mix, rate, state, paused: this.paused, ...this.writer.status() };
  }

  /** Launches the connection; the bug's MEDIA_BUG_START follows the API reply. */
  open(): void {
    setImmediate(() => this.ch.fire('MEDIA_BUG_START', { pre: [...BUG_HEADERS] }));
    const { url, deflate, headers } = this.settings;
    // An empty port: libwsc fails in its thread, after start has answered +OK.
    if (/^wss?:\/\/[^/:]*:(\/|$)/.test(url)) {
      setImmediate(() => this.fail(FAILURE.badTarget));
      return;
    }
    // libwsc resolves IPv4 only (bufferevent_socket_connect_hostname with AF_INET).
    // libwsc sends an Origin of the target's host and port.
    const origin = `http://${new URL(url).host}`;
    const upgrade = libwscUpgrade(deflate);
    const { finishRequest } = upgrade;
    const options = { perMessageDeflate: deflate, origin, headers, family: 4, finishRequest };
    const ws = new WebSocket(url, options);
    const timeout = setTimeout(() => this.fail(FAILURE.timeout), CONNECT_TIMEOUT_MS);
    this.phase = { name: 'connecting', ws, timeout };
    ws.on('upgrade', (res) => {
      if (!upgrade.takes(res)) this.fail(FAILURE.upgrade);
    });
    ws.on('open', () => this.onOpen(ws));
    ws.on('unexpected-response', (req, res) => {
      this.fail(FAILURE.upgrade);
      res.resume();
      req.destroy();
    });
    ws.on('error', (err: NodeJS.ErrnoException) => {
      if (this.phase.name === 'connecting') return this.fail(socketFailure(err.code));
      // Once open, ws reports only frames its receiver rejects.
      const fault = frameFault(err);
      if (fault.kind === 'failed') this.fail(fault.failure);
      else this.onClose(fault.code, fault.reason);
    });
    ws.on('message', (data, isBinary) => {
      // The module binds no binary callback: only text frames mean something.
      if (!isBinary) this.onText(Buffer.from(data as Buffer).toString('utf8'));
    });
    ws.on('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
    this.batch = [];
  }

  /** send_text: a text frame if connected; either way the command succeeds. */
  sendText(text: string): void {
    if (this.phase.name === 'connected') this.send(this.phase.ws, text);
  }

  /** API stop, with its optional last text frame; MEDIA_BUG_STOP follows the reply. */
  stop(text?: string): void {
    if (text !== undefined) this.sendText(text);
    this.close('afterReply');
  }

  /** At CS_HANGUP, before CHANNEL_HANGUP_COMPLETE. */
  stopOnHangup(): void {
    this.close('now');
  }

  private onOpen(ws: WebSocket): void {
    if (this.phase.name !== 'connecting') return;
    clearTimeout(this.phase.timeout);
    const { heartBeatSec, metadata } = this.settings;
    const ping =
      heartBeatSec > 0 ? setInterval(() => ws.ping('ping'), heartBeatSec * 1000) : undefined;
    this.phase = { name: 'connected', ws, ping };
    this.nextReadSlot = slotOf(nowSample()) + FRAME_SAMPLES;
    if (metadata) this.send(ws, metadata);
    this.notify('connect', connectedBody());
  }

  private onText(text: string): void {
    if (this.phase.name !== 'connected') return;
    const msg = parseStreamMessage(text, {
      rate: this.settings.rate,
      channels: channelsOf(this.settings.mix),
    });
    if (msg.kind === 'raw') {
      this.writer.offer(msg.pcm, nowSample());
      if (this.writer.isWaiting) this.phase.ws.pause();
    } else if (msg.kind === 'file') {
      const file = join(tmpdir(), `${this.ch.uuid}_${this.files.length}.tmp${msg.ext}`);
      this.files.push(file);
      writeFile(file, msg.bytes).then(
        () => this.notify('play', JSON.stringify({ ...msg.data, file })),
        () => this.notify('json', text),
      );
    } else {
      this.notify('json', text);
    }
  }

  private onClose(code: number, reason: string): void {
    if (this.phase.name !== 'connected') return;
    // 1006: TCP ended without a CLOSE frame, which libwsc reports as an I/O error.
    if (code === 1006) return this.fail(FAILURE.abnormal);
    // What is buffered still plays: the write thread runs until stop or hangup.
    this.endPhase();
    this.phase = { name: 'disconnected' };
    this.notify('disconnect', disconnectedBody(closeCodeOf(code), reason));
  }

  /** A text frame of the command's bytes as they came, UTF-8 or not (see the API's checks). */
  private send(ws: WebSocket, text: string): void {
    ws.send(encodeBytes(text), { binary: false });
  }

  /** libwsc reported an error: `::error`, then the module closes the stream itself. */
  private fail(failure: StreamFailure): void {
    if (this.phase.name === 'closed') return;
    this.notify('error', errorBody(failure));
    this.close('now');
  }

  /** Clears the callbacks first (no event after this), closes the socket, removes the bug. */
  private close(when: 'now' | 'afterReply'): void {
    if (this.phase.name === 'closed') return;
    const ws = 'ws' in this.phase ? this.phase.ws : undefined;
    this.endPhase();
    this.phase = { name: 'closed' };
    clearInterval(this.clock);
    this.writer.clear();
    if (ws) {
      ws.removeAllListeners();
      ws.on('error', () => undefined);
      // A socket paused by back-pressure must read again to see the server's CLOSE.
      if (ws.isPaused) ws.resume();
      if (ws.readyState === WebSocket.OPEN) ws.close(NORMAL_CLOSE.code, NORMAL_CLOSE.reason);
      else ws.terminate();
    }
    for (const file of this.files.splice(0)) unlink(file).catch(() => undefined);
    if (!this.ch.bugs.delete(this)) return;
    const bugStop = () => this.ch.fire('MEDIA_BUG_STOP', { pre: [...BUG_HEADERS] });
    if (when === 'now') bugStop();
    else setImmediate(bugStop);
  }

  private endPhase(): void {
    if (this.phase.name === 'connecting') clearTimeout(this.phase.timeout);
    if (this.phase.name === 'connected') clearInterval(this.phase.ping);
  }

  private tick(): void {
    const now = nowSample();
    this.writer.tick(now);
    if (this.phase.name !== 'connected') return;
    const ws = this.phase.ws;
    if (!this.writer.isWaiting) {
      if (ws.isPaused) ws.resume();
      for (const frame of this.outbox.splice(0)) ws.send(frame);
    }
    for (; this.nextReadSlot + FRAME_SAMPLES <= now; this.nextReadSlot += FRAME_SAMPLES) {
      const wrote = this.written.delete(this.nextReadSlot);
      if (this.paused) continue;
      // switch_core_media_bug_read with fill: a mixed/stereo frame needs both directions, so
      // nothing is sent while nothing writes to the leg (a parked call).
      if (this.settings.mix !== 'mono' && !wrote && this.ch.playing === 0) continue;
      this.batch.push(
        captureFrame(this.ch.audio, this.nextReadSlot, this.settings.mix, this.settings.rate),
      );
      if (this.batch.length < this.settings.bufferFrames) continue;
      const message = Buffer.concat(this.batch.splice(0));
      if (!this.writer.isWaiting) ws.send(message);
      else if (this.outbox.length < SEND_QUEUE_LIMIT) this.outbox.push(message);
    }
  }

  private notify(kind: StreamEvent, body: string): void {
    if (this.phase.name === 'closed') return; // the module clears its callbacks first
    const ev = this.ctx.createEvent('CUSTOM', EVENT_SITE, subclassOf(kind));
    ev.headers.push(...channelHeaders(this.ch, true));
    ev.body = body;
    this.ctx.fire(ev);
  }
}

/** The stream on a channel: its `audio_stream` bug, if attached. */
export function streamOf(ch: Channel): AudioStream | undefined {
  for (const bug of ch.bugs) if (bug instanceof AudioStream) return bug;
  return undefined;
}
