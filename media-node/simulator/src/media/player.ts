// A file handle's clock: plays a file of known duration in real time and supports what
// uuid_fileman and conference file control do (pause toggle, seek, restart, stop).

export type PlayEnd = 'done' | 'break' | 'hangup';

export class Player {
  private positionBase = 0;
  private startedAt = 0;
  private running = false;
  private userPaused = false;
  private suspended = false;
  private timer: NodeJS.Timeout | undefined;
  private ended: PlayEnd | undefined;
  private pendingEnd: PlayEnd | undefined;
  private resolveEnd!: (how: PlayEnd) => void;
  readonly finished: Promise<PlayEnd>;

  constructor(readonly durationMs: number) {
    this.finished = new Promise((resolve) => (this.resolveEnd = resolve));
  }

  get isEnded(): boolean {
    return this.ended !== undefined;
  }

  get paused(): boolean {
    return this.userPaused;
  }

  /** Playing now: not ended, paused or suspended. */
  get isRunning(): boolean {
    return this.running;
  }

  /** Milliseconds played so far. */
  position(): number {
    if (!this.running) return this.positionBase;
    return Math.min(this.durationMs, this.positionBase + (performance.now() - this.startedAt));
  }

  start(): Promise<PlayEnd> {
    this.schedule();
    return this.finished;
  }

  /** uuid_fileman pause / conference pause_play: a toggle. */
  togglePause(): boolean {
    this.userPaused = !this.userPaused;
    this.schedule();
    return this.userPaused;
  }

  suspend(): void {
    this.suspended = true;
    this.schedule();
  }

  resume(): void {
    this.suspended = false;
    if (this.pendingEnd) {
      this.end(this.pendingEnd);
      return;
    }
    this.schedule();
  }

  /** `+ms`/`-ms` relative, plain number absolute (milliseconds). */
  seek(spec: string): number {
    const n = Number(spec);
    if (!Number.isFinite(n)) return this.position();
    const target = /^[+-]/.test(spec) ? this.position() + n : n;
    this.positionBase = Math.max(0, Math.min(this.durationMs, target));
    if (this.running) this.startedAt = performance.now();
    this.schedule();
    return this.positionBase;
  }

  restart(): void {
    this.seek('0');
  }

  /** Stop the file as if it had ended (uuid_fileman stop, conference stop). */
  stop(): void {
    this.end('done');
  }

  /** Interrupt; a suspended (nested) player ends only when it is resumed, as in FreeSWITCH. */
  interrupt(how: PlayEnd): void {
    if (this.suspended && how === 'break') {
      this.pendingEnd = how;
      return;
    }
    this.end(how);
  }

  private end(how: PlayEnd): void {
    if (this.ended) return;
    this.freeze();
    this.ended = how;
    this.resolveEnd(how);
  }

  private freeze(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.running) {
      this.positionBase = this.position();
      this.running = false;
    }
  }

  private schedule(): void {
    if (this.ended) return;
    this.freeze();
    if (this.userPaused || this.suspended) return;
    if (!Number.isFinite(this.durationMs)) {
      this.running = true;
      this.startedAt = performance.now();
      return;
    }
    const remaining = this.durationMs - this.positionBase;
    this.running = true;
    this.startedAt = performance.now();
    this.timer = setTimeout(() => this.end('done'), Math.max(0, remaining));
  }
}
