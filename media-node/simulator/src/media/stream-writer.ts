// mod_audio_stream's write side. injectRawAudio puts a message's samples into a small buffer
// (20 ms × start rate/8000 × STREAM_BUFFER_SIZE/20 of call audio); the write thread takes one
// 20 ms frame per tick of its own timer when a whole frame is there (no silence fill) and
// writes it into the call. FreeSWITCH 1.10.12 on Linux gives every soft timer a timerfd of its
// own, so those ticks fall anywhere within the call's 20 ms frames, a different place for every
// stream. What does not fit waits: the module's socket thread sleeps until space frees, reading
// nothing meanwhile, so its server feels the back-pressure through TCP (AudioStream pauses its
// socket while `waiting`).
import { FRAME_SAMPLES, samplesToMs } from './clock.js';

interface Piece {
  readonly samples: Int16Array;
  /** The clock sample from which the write thread may take it (no sooner than it arrived). */
  readonly since: number;
}

export class StreamWriter {
  private readonly buffer: Piece[] = [];
  private readonly waiting: Piece[] = [];
  private buffered = 0;
  private waitingSamples = 0;
  /** Messages that found the buffer too full and waited (its socket thread slept meanwhile). */
  private waits = 0;
  /** The clock sample of the write thread's next tick. */
  private nextTick: number;

  constructor(
    /** Buffer size in call samples. */
    private readonly capacity: number,
    /** Where a frame goes: into what the call hears, from the clock sample of its tick. */
    private readonly write: (at: number, frame: Int16Array) => void,
    /** The clock sample the write thread's timer started at: its ticks follow every 20 ms. */
    start: number,
  ) {
    this.nextTick = start + FRAME_SAMPLES;
  }

  /** A message is waiting for space in the buffer. */
  get isWaiting(): boolean {
    return this.waitingSamples > 0;
  }

  status(): {
    readonly buffered_ms: number;
    readonly waiting_ms: number;
    readonly size_ms: number;
    readonly waits: number;
  } {
    return {
      buffered_ms: samplesToMs(this.buffered),
      waiting_ms: samplesToMs(this.waitingSamples),
      size_ms: samplesToMs(this.capacity),
      waits: this.waits,
    };
  }

  /** A decoded message arrives at clock sample `now`. */
  offer(samples: Int16Array, now: number): void {
    if (samples.length === 0) return;
    // The write thread took its frames at the ticks that have passed, though the simulator's
    // timer runs its ticks later: the room they left is there for this message.
    this.tick(now);
    this.waiting.push({ samples, since: now });
    this.waitingSamples += samples.length;
    this.fill(now);
    if (this.waitingSamples > 0) this.waits++;
  }

  /** The write thread's ticks up to clock sample `now`, each at its own time. */
  tick(now: number): void {
    while (this.nextTick <= now) {
      const tick = this.nextTick;
      const frame = this.take(tick);
      if (frame) this.write(tick, frame);
      this.nextTick += FRAME_SAMPLES;
      this.fill(tick);
    }
  }

  clear(): void {
    this.buffer.length = 0;
    this.waiting.length = 0;
    this.buffered = 0;
    this.waitingSamples = 0;
  }

  /** Moves waiting samples into the free space; they become takeable from `at` on. */
  private fill(at: number): void {
    while (this.waiting.length > 0 && this.buffered < this.capacity) {
      const head = this.waiting[0]!;
      const n = Math.min(this.capacity - this.buffered, head.samples.length);
      this.buffer.push({ samples: head.samples.subarray(0, n), since: Math.max(at, head.since) });
      this.buffered += n;
      this.waitingSamples -= n;
      if (n === head.samples.length) this.waiting.shift();
      else this.waiting[0] = { samples: head.samples.subarray(n), since: head.since };
    }
  }

  /** One frame for the tick at clock sample `tick`, if a whole one had arrived by then. */
  private take(tick: number): Int16Array | undefined {
    if (this.buffered < FRAME_SAMPLES) return undefined;
    let counted = 0;
    for (const piece of this.buffer) {
      counted += piece.samples.length;
      if (counted >= FRAME_SAMPLES) {
        if (piece.since > tick) return undefined;
        break;
      }
    }
    const frame = new Int16Array(FRAME_SAMPLES);
    for (let filled = 0; filled < FRAME_SAMPLES;) {
      const head = this.buffer[0]!;
      const n = Math.min(FRAME_SAMPLES - filled, head.samples.length);
      frame.set(head.samples.subarray(0, n), filled);
      filled += n;
      if (n === head.samples.length) this.buffer.shift();
      else this.buffer[0] = { samples: head.samples.subarray(n), since: head.since };
    }
    this.buffered -= FRAME_SAMPLES;
    return frame;
  }
}
