// uuid_audio_stream, as mod_audio_stream does it: a real WebSocket client that sends the
// optional metadata as a text message, then L16 PCM in 20 ms binary frames at real-time pace
// (mono/mixed: one channel; stereo: caller and callee interleaved), and reports through CUSTOM
// mod_audio_stream::connect|disconnect|error|json events carrying the channel and a JSON body.
import { WebSocket } from 'ws';
import type { Channel, MediaBug } from '../core/channel.js';
import type { SimContext } from '../core/context.js';
import { channelHeaders } from '../core/channel-headers.js';

const FRAME_MS = 20;

class AudioStream implements MediaBug {
  private ws: WebSocket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private phase = 0;
  private framesSent = 0;
  private startedAt = 0;
  private paused = false;
  private closed = false;

  constructor(
    private readonly ctx: SimContext,
    readonly ch: Channel,
    private readonly url: string,
    private readonly channels: 1 | 2,
    private readonly rate: number,
    private readonly metadata: string | undefined,
  ) {}

  open(): void {
    const ws = new WebSocket(this.url);
    this.ws = ws;
    ws.on('open', () => {
      this.notify('connect', { status: 'connected' });
      if (this.metadata) ws.send(this.metadata);
      this.startedAt = performance.now();
      this.timer = setInterval(() => this.pump(), FRAME_MS);
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.notify('json', undefined, Buffer.from(data as Buffer).toString('utf8'));
    });
    ws.on('error', (err) => {
      this.notify('error', { status: 'error', message: err.message });
    });
    ws.on('close', (code, reason) => {
      const wasOpen = this.timer !== undefined;
      this.halt();
      this.ch.bugs.delete(this);
      if (wasOpen || !this.closed) {
        this.notify('disconnect', { status: 'disconnected', code, reason: reason.toString() });
      }
      this.closed = true;
    });
  }

  setPaused(paused: boolean): void {
    this.paused = paused;
  }

  sendText(text: string): boolean {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(text);
    return true;
  }

  stopOnHangup(): void {
    this.close();
  }

  close(): void {
    this.halt();
    if (this.ws && this.ws.readyState <= WebSocket.OPEN) this.ws.close(1000, 'stream closed');
  }

  private halt(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Sends every frame that is due, so timer jitter never changes the total rate. */
  private pump(): void {
    const due = Math.floor((performance.now() - this.startedAt) / FRAME_MS);
    while (this.framesSent < due && this.ws?.readyState === WebSocket.OPEN) {
      this.framesSent++;
      this.ws.send(this.paused ? this.frame(true) : this.frame(false));
    }
  }

  private frame(silent: boolean): Buffer {
    const samples = (this.rate * FRAME_MS) / 1000;
    const buf = Buffer.alloc(samples * this.channels * 2);
    for (let i = 0; i < samples; i++) {
      const v = silent ? 0 : Math.round(Math.sin(this.phase) * 6000);
      this.phase += (2 * Math.PI * 440) / this.rate;
      for (let c = 0; c < this.channels; c++)
        buf.writeInt16LE(c === 0 ? v : v >> 1, (i * this.channels + c) * 2);
    }
    return buf;
  }

  private notify(kind: string, body?: Record<string, unknown>, raw?: string): void {
    const ev = this.ctx.createEvent(
      'CUSTOM',
      ['mod_audio_stream.c', 'responseHandler', 52],
      `mod_audio_stream::${kind}`,
    );
    ev.headers.push(...channelHeaders(this.ch, true));
    const text = raw ?? (body ? JSON.stringify(body) : undefined);
    if (text !== undefined) ev.body = text;
    this.ctx.fire(ev);
  }
}

function streams(ch: Channel): AudioStream[] {
  return [...ch.bugs].filter((b): b is AudioStream => b instanceof AudioStream);
}

/** `uuid_audio_stream <uuid> start <ws-url> <mono|mixed|stereo> <8k|16k> [metadata]` and friends. */
export function uuidAudioStream(ctx: SimContext, ch: Channel, argv: string[]): string {
  const [action, ...rest] = argv;
  const current = streams(ch)[0];
  switch (action) {
    case 'start': {
      const [url = '', mix = 'mono', rateSpec = '8k', ...meta] = rest;
      if (!/^wss?:\/\//.test(url) || !['mono', 'mixed', 'stereo'].includes(mix) || current) {
        return '-ERR Operation Failed\n';
      }
      const rate = rateSpec === '16k' ? 16000 : rateSpec === '8k' ? 8000 : Number(rateSpec);
      if (!Number.isInteger(rate) || rate <= 0 || rate % 8000 !== 0)
        return '-ERR Operation Failed\n';
      const stream = new AudioStream(
        ctx,
        ch,
        url,
        mix === 'stereo' ? 2 : 1,
        rate,
        meta.join(' ') || undefined,
      );
      ch.bugs.add(stream);
      stream.open();
      return '+OK Success\n';
    }
    case 'stop':
      if (!current) return '-ERR Operation Failed\n';
      current.close();
      return '+OK Success\n';
    case 'pause':
    case 'resume':
      if (!current) return '-ERR Operation Failed\n';
      current.setPaused(action === 'pause');
      return '+OK Success\n';
    case 'send_text':
      return current?.sendText(rest.join(' ')) ? '+OK Success\n' : '-ERR Operation Failed\n';
    default:
      return '-USAGE: <uuid> [start | stop | send_text | pause | resume | graceful-shutdown ] [wss-url | path] [mono | mixed | stereo] [8000 | 16000] [metadata]\n';
  }
}
