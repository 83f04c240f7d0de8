import { isQuiet } from './g711.js';

/** The room a FIFO keeps once used: 1 KiB, six 20 ms chunks of μ-law. */
const MIN_CAPACITY = 1024;
const EMPTY = Buffer.alloc(0);

/**
 * Bytes in order, first in first out, in one buffer of the FIFO's own that grows as needed and
 * shrinks as it drains. What is pushed is copied: the pieces the application's frames
 * decode to are small slices of Node's shared 8 KiB buffer pool, and one kept in a queue would
 * keep its whole slab alive. Positions count every byte since the FIFO was made.
 */
export class AudioFifo {
  private bytes = EMPTY;
  private head = 0;
  private tail = 0;
  /** The position of the first byte held. */
  private base = 0;

  get length(): number {
    return this.tail - this.head;
  }

  /** The position of the next byte to take. */
  get start(): number {
    return this.base;
  }

  /** The position the next byte pushed will have. */
  get end(): number {
    return this.base + this.length;
  }

  push(data: Buffer): void {
    if (this.tail + data.length > this.bytes.length) this.makeRoom(data.length);
    data.copy(this.bytes, this.tail);
    this.tail += data.length;
  }

  /** Takes `n` bytes (at most `length`), copied into `into` from 0 when given, else dropped. */
  take(n: number, into?: Buffer): void {
    if (into) this.bytes.copy(into, 0, this.head, this.head + n);
    this.head += n;
    this.base += n;
    if (this.head === this.tail) this.head = this.tail = 0;
    // A burst grew it: what it holds now fits in an eighth, so the room goes back.
    if (this.bytes.length > MIN_CAPACITY && this.length * 8 <= this.bytes.length) this.resize(0);
  }

  /** Whether the next `n` bytes (at most `length`) are quiet μ-law. */
  quiet(n: number): boolean {
    return isQuiet(this.bytes, this.head, this.head + n);
  }

  /** Drops everything; positions go on from where they were. */
  clear(): void {
    this.take(this.length);
  }

  private makeRoom(more: number): void {
    if (this.length + more > this.bytes.length || this.head === 0) return this.resize(more);
    this.bytes.copy(this.bytes, 0, this.head, this.tail);
    this.tail -= this.head;
    this.head = 0;
  }

  /** Moves what it holds to a buffer of twice that and `more` (none when empty). */
  private resize(more: number): void {
    const size = 2 * (this.length + more);
    // Unpooled: the FIFO's own memory, freed with it.
    const bytes = size === 0 ? EMPTY : Buffer.allocUnsafeSlow(Math.max(MIN_CAPACITY, size));
    this.bytes.copy(bytes, 0, this.head, this.tail);
    this.tail -= this.head;
    this.head = 0;
    this.bytes = bytes;
  }
}
