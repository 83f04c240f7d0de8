import { AudioFifo } from './audio-fifo.js';
import { decodeToL16 } from './g711.js';

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
/**
 * Chunks a playout may stay behind real time (ticks the pacer missed while it played) waiting
 * for quiet chunks to drop: 100 ms. Beyond, its oldest audio is dropped whatever it holds.
 */
export const MAX_BEHIND_CHUNKS = 5;
/**
 * Ticks after a late one during which its debt stands whatever is queued (100 ms): the audio sent
 * during a stall may be read a few ticks after it on a busy machine. After them the debt is at
 * most what is queued beyond the chunk a tick needs.
 */
export const SETTLE_TICKS = 5;
/**
 * Ticks over which the least queued is watched (1 s). Audio that stood queued all that while
 * behind the chunk a tick needs, the app keeping pace, only adds latency (a burst it sent after
 * a stall of its own, or of the caller's audio): it is owed as late ticks are...
 */
export const STANDING_TICKS = 50;
/** ...unless more than this stood (300 ms): that is an app sending ahead of real time. */
export const MAX_STANDING_CHUNKS = 15;
/**
 * Ticks a playout stays subscribed with nothing to do (1 s): while a stream's audio flows it sees
 * every tick, so a missed one is known even when its queue ran dry just before.
 */
export const IDLE_TICKS = 50;
const MULAW_SILENCE = 0xff;

/** The node's 20 ms clock as a playout uses it (the Pacer): numbered ticks every stream shares. */
export interface TickSource {
  /** The number of the tick under way now. */
  now(): number;
  /** Calls `handler` every tick from the next one; returns its unsubscribe. */
  subscribe(handler: (tick: number) => void): () => void;
}

/** Where a playout's chunks and answered marks go. */
export interface PlayoutSink {
  /** One 20 ms chunk, as L16, to FreeSWITCH: a buffer the playout reuses once this returns. */
  play(l16: Buffer): void;
  /** A mark of the application's, answered. */
  marked(name: string): void;
  /** 20 ms chunks dropped to get back to real time (missed ticks, audio standing queued). */
  dropped(chunks: number): void;
}

// One chunk is built at a time, synchronously, for whichever stream's tick runs.
const chunk = Buffer.alloc(SAMPLES_PER_CHUNK);
const l16 = Buffer.alloc(SAMPLES_PER_CHUNK * 2);

/**
 * What a bidirectional stream's application sent to be played: its μ-law audio and marks in
 * order, played one 20 ms chunk a tick of the node's pacer, with no gap between the pieces
 * however the application cuts them. A piece shorter than a chunk waits one tick for more, then
 * plays padded with silence (as it does at once when a mark follows it). Subscribed to the pacer
 * while it has something to do, and IDLE_TICKS more.
 *
 * A tick the pacer missed (a busy event loop, a host pause) is a chunk FreeSWITCH's module did not
 * get in time: it played nothing then, and everything queued behind plays 20 ms later, for good
 * while the application sends at real-time pace. The lost time cannot be made up by sending two
 * chunks in a tick: the module holds one and would make its socket thread wait for room. So the
 * playout drops queued audio instead: quiet chunks as they reach the head, and, beyond
 * MAX_BEHIND_CHUNKS, the oldest whatever it holds. A late tick itself sends nothing (below).
 * The debt shrinks to what is queued beyond a chunk once SETTLE_TICKS have passed: an app that
 * sent nothing meanwhile owes nothing. Audio standing queued a whole second is owed likewise
 * (STANDING_TICKS). (docs/decisions/media-streams.md has the figures.)
 */
export class Playout {
  private readonly audio = new AudioFifo();
  /** Marks not reached yet, each at the position in the audio where it was sent. */
  private marks: Array<{ readonly name: string; readonly at: number }> = [];
  /** Marks whose audio has gone to FreeSWITCH, answered once it has been heard (tick `due`). */
  private releasing: Array<{ readonly name: string; readonly due: number }> = [];
  private lastSent: number | undefined;
  /** The last tick seen while subscribed; undefined while asleep. */
  private lastTick: number | undefined;
  /** Chunks owed to missed ticks: how far the queue's audio plays behind real time. */
  private behind = 0;
  /** Ticks since the last late one. */
  private sinceLate = 0;
  /** The fewest whole chunks queued beyond one at a tick of the current STANDING_TICKS... */
  private least = Infinity;
  /** ...and how many of them have passed. */
  private watched = 0;
  /** Ticks in a row with nothing sent, queued or releasing. */
  private idle = 0;
  /** A short piece at the head has waited a tick for more already. */
  private waited = false;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly clock: TickSource,
    private readonly sink: PlayoutSink,
  ) {}

  /** Samples waiting to be played. */
  get queuedSamples(): number {
    return this.audio.length;
  }

  /** Queues audio (copied); false when it would make more than 60 s (it is dropped). */
  push(mulaw: Buffer): boolean {
    if (this.audio.length + mulaw.length > MAX_QUEUED_SAMPLES) return false;
    if (mulaw.length === 0) return true;
    this.audio.push(mulaw);
    this.wake();
    return true;
  }

  /** A mark: answered once the audio queued before it has been heard, at once if none is. */
  mark(name: string): void {
    if (this.audio.length === 0) this.release(name);
    else this.marks.push({ name, at: this.audio.end });
  }

  /** Drops the audio not yet sent; every mark waiting is answered at once, in order. */
  clear(): void {
    const marks = [...this.releasing, ...this.marks].map((m) => m.name);
    this.reset();
    for (const name of marks) this.sink.marked(name);
  }

  /** The stream is over: everything is dropped, nothing answered. */
  close(): void {
    this.reset();
  }

  private reset(): void {
    this.audio.clear();
    this.marks = [];
    this.releasing = [];
    this.waited = false;
    this.behind = 0;
    this.sleep();
  }

  private readonly tick = (tick: number): void => {
    // A late tick, one that came after the next was due, sends nothing: its chunk would reach
    // the module after the slot it was for, and from then on the module would hold one chunk
    // more than it plays, its socket thread waiting for room at every chunk. It is owed instead,
    // with the ticks it passed.
    const late = this.lastTick !== undefined && tick > this.lastTick + 1;
    if (late) this.behind += tick - (this.lastTick ?? tick);
    this.lastTick = tick;
    while (this.releasing[0] && this.releasing[0].due <= tick) {
      this.sink.marked(this.releasing.shift()?.name ?? '');
    }
    this.releaseLeadingMarks();
    this.sinceLate = late ? 0 : this.sinceLate + 1;
    const surplus = Math.floor(this.audio.length / SAMPLES_PER_CHUNK) - 1;
    if (this.sinceLate >= SETTLE_TICKS) this.behind = Math.max(0, Math.min(this.behind, surplus));
    this.watchStanding(surplus);
    if (this.behind > 0) this.catchUp();
    const sends = !late && this.take();
    if (sends) {
      this.lastSent = tick;
      this.sink.play(decodeToL16(chunk, l16));
      this.releaseLeadingMarks();
    }
    const busy = sends || this.audio.length > 0 || this.marks.length + this.releasing.length > 0;
    if (busy) this.idle = 0;
    else if (++this.idle >= IDLE_TICKS) this.sleep();
  };

  /** Owes what stood queued beyond a chunk for STANDING_TICKS (`surplus`: beyond one now). */
  private watchStanding(surplus: number): void {
    this.least = Math.min(this.least, surplus);
    if (++this.watched < STANDING_TICKS) return;
    if (this.least > 0 && this.least <= MAX_STANDING_CHUNKS) {
      this.behind = Math.max(this.behind, this.least);
    }
    this.least = Infinity;
    this.watched = 0;
  }

  /**
   * Drops what missed ticks left behind: the oldest beyond the bound, then quiet chunks; never
   * the last chunk there is to send (a tick with nothing to send would only lose time again).
   * An app that sent more than MAX_STANDING_CHUNKS ahead (a text-to-speech answer) is not
   * keeping pace: its speech is never dropped for the node's stall, only its quiet chunks.
   */
  private catchUp(): void {
    const sentAhead = this.audio.length > (MAX_STANDING_CHUNKS + 1) * SAMPLES_PER_CHUNK;
    const bound = sentAhead ? Infinity : MAX_BEHIND_CHUNKS;
    let dropped = 0;
    while (
      this.behind > 0 &&
      this.audio.length >= 2 * SAMPLES_PER_CHUNK &&
      this.audioAhead() >= SAMPLES_PER_CHUNK
    ) {
      if (this.behind <= bound && !this.audio.quiet(SAMPLES_PER_CHUNK)) break;
      this.audio.take(SAMPLES_PER_CHUNK);
      this.behind--;
      dropped++;
      this.releaseLeadingMarks();
    }
    if (dropped > 0) this.sink.dropped(dropped);
  }

  /** Marks the audio has reached: all the audio before them has been sent (or dropped). */
  private releaseLeadingMarks(): void {
    while (this.marks[0] && this.marks[0].at <= this.audio.start) {
      this.release(this.marks.shift()?.name ?? '');
    }
  }

  /** Answered when the last chunk sent has been heard; at once if it has and none waits. */
  private release(name: string): void {
    const heard = this.lastSent === undefined ? -1 : this.lastSent + LEAD_TICKS;
    const due = Math.max(heard, this.releasing.at(-1)?.due ?? -1);
    if (this.releasing.length === 0 && due <= this.clock.now()) {
      this.sink.marked(name);
      return;
    }
    this.releasing.push({ name, due });
    this.wake();
  }

  /** Fills `chunk` with the next chunk to send, if one is due; false if none is. */
  private take(): boolean {
    const available = Math.min(this.audioAhead(), SAMPLES_PER_CHUNK);
    if (available === 0) return false;
    const markFollows = this.marks.length > 0 && this.marks[0]?.at === this.audio.start + available;
    if (available < SAMPLES_PER_CHUNK && !markFollows && !this.waited) {
      this.waited = true;
      return false;
    }
    this.waited = false;
    this.audio.take(available, chunk);
    chunk.fill(MULAW_SILENCE, available);
    return true;
  }

  /** Bytes of audio before the next mark. */
  private audioAhead(): number {
    const mark = this.marks[0];
    return mark ? mark.at - this.audio.start : this.audio.length;
  }

  private wake(): void {
    this.unsubscribe ??= this.clock.subscribe(this.tick);
  }

  private sleep(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.lastTick = undefined;
    this.behind = 0;
    this.idle = 0;
    this.least = Infinity;
    this.watched = 0;
  }
}
