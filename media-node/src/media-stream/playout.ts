import { decodeToL16 } from './g711.js';
import type { Pacer } from './pacer.js';

/** μ-law samples (bytes) in one 20 ms chunk. */
export const SAMPLES_PER_CHUNK = 160;
/** At most 60 s of an application's audio waits to be played; beyond, it is dropped. */
export const MAX_QUEUED_SAMPLES = 60 * 8000;
/**
 * Ticks from sending a chunk to its having been heard: FreeSWITCH's module plays what it holds
 * (20–40 ms) before what it is sent, so a mark is answered this long after the last chunk
 * before it went out.
 */
export const LEAD_TICKS = 2;
const MULAW_SILENCE = 0xff;

/** Where a playout's chunks and answered marks go. */
export interface PlayoutSink {
  /** One 20 ms chunk, as L16, to FreeSWITCH. */
  play(l16: Buffer): void;
  /** A mark of the application's, answered. */
  marked(name: string): void;
}

type Entry = { readonly audio: Buffer } | { readonly mark: string };

/**
 * What a bidirectional stream's application sent to be played: its μ-law audio and marks in
 * order, played one 20 ms chunk a tick of the node's pacer, with no gap between the pieces
 * however the application cuts them. A piece shorter than a chunk waits one tick for more, then
 * plays padded with silence (as it does at once when a mark follows it). Subscribed to the pacer
 * only while it has something to do.
 */
export class Playout {
  private readonly queue: Entry[] = [];
  /** Bytes of the audio at the head of the queue already played. */
  private offset = 0;
  private queued = 0;
  /** Marks whose audio has gone to FreeSWITCH, answered once it has been heard (tick `due`). */
  private releasing: Array<{ readonly name: string; readonly due: number }> = [];
  private lastSent: number | undefined;
  /** A short piece at the head has waited a tick for more already. */
  private waited = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly pacer: Pacer,
    private readonly sink: PlayoutSink,
  ) {}

  /** Samples waiting to be played. */
  get queuedSamples(): number {
    return this.queued;
  }

  /** Queues audio; false when it would make more than 60 s (it is dropped). */
  push(mulaw: Buffer): boolean {
    if (this.queued + mulaw.length > MAX_QUEUED_SAMPLES) return false;
    if (mulaw.length === 0) return true;
    this.queue.push({ audio: mulaw });
    this.queued += mulaw.length;
    this.wake();
    return true;
  }

  /** A mark: answered once the audio queued before it has been heard, at once if none is. */
  mark(name: string): void {
    if (this.queue.length === 0) this.release(name);
    else this.queue.push({ mark: name });
  }

  /** Drops the audio not yet sent; every mark waiting is answered at once, in order. */
  clear(): void {
    const marks = [
      ...this.releasing.map((r) => r.name),
      ...this.queue.flatMap((e) => ('mark' in e ? [e.mark] : [])),
    ];
    this.reset();
    for (const name of marks) this.sink.marked(name);
  }

  /** The stream is over: everything is dropped, nothing answered. */
  close(): void {
    this.reset();
  }

  private reset(): void {
    this.queue.length = 0;
    this.releasing = [];
    this.offset = 0;
    this.queued = 0;
    this.waited = false;
    this.sleep();
  }

  private readonly tick = (tick: number): void => {
    while (this.releasing[0] && this.releasing[0].due <= tick) {
      this.sink.marked(this.releasing.shift()?.name ?? '');
    }
    this.releaseLeadingMarks();
    const chunk = this.take();
    if (chunk) {
      this.lastSent = tick;
      this.sink.play(decodeToL16(chunk));
      this.releaseLeadingMarks();
    }
    if (this.queue.length === 0 && this.releasing.length === 0) this.sleep();
  };

  /** Marks at the head of the queue: all the audio before them has been sent. */
  private releaseLeadingMarks(): void {
    for (let head = this.queue[0]; head && 'mark' in head; head = this.queue[0]) {
      this.queue.shift();
      this.release(head.mark);
    }
  }

  /** Answered when the last chunk sent has been heard; at once if it has and none waits. */
  private release(name: string): void {
    const heard = this.lastSent === undefined ? -1 : this.lastSent + LEAD_TICKS;
    const due = Math.max(heard, this.releasing.at(-1)?.due ?? -1);
    if (this.releasing.length === 0 && due <= this.pacer.now()) {
      this.sink.marked(name);
      return;
    }
    this.releasing.push({ name, due });
    this.wake();
  }

  /** The next chunk to send, if one is due. */
  private take(): Buffer | undefined {
    let available = 0;
    let markFollows = false;
    for (let i = 0; i < this.queue.length && available < SAMPLES_PER_CHUNK; i++) {
      const entry = this.queue[i];
      if (!entry || 'mark' in entry) {
        markFollows = true;
        break;
      }
      available += entry.audio.length - (i === 0 ? this.offset : 0);
    }
    if (available === 0) return undefined;
    if (available < SAMPLES_PER_CHUNK && !markFollows && !this.waited) {
      this.waited = true;
      return undefined;
    }
    this.waited = false;
    const chunk = Buffer.alloc(SAMPLES_PER_CHUNK, MULAW_SILENCE);
    let filled = 0;
    for (let head = this.queue[0]; filled < SAMPLES_PER_CHUNK && head && 'audio' in head;) {
      const n = Math.min(SAMPLES_PER_CHUNK - filled, head.audio.length - this.offset);
      head.audio.copy(chunk, filled, this.offset, this.offset + n);
      filled += n;
      this.offset += n;
      this.queued -= n;
      if (this.offset === head.audio.length) {
        this.queue.shift();
        this.offset = 0;
        head = this.queue[0];
      }
    }
    return chunk;
  }

  private wake(): void {
    this.unsubscribe ??= this.pacer.subscribe(this.tick);
  }

  private sleep(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }
}
