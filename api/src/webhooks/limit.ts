/** A counting semaphore: at most `size` holders at once, the rest wait in arrival order. */
export class Limit {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  /** Runs `task` once a place is free. Not async itself: this runs for every webhook. */
  run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active < this.size) {
      this.active++;
      return this.hold(task);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.hold(task));
  }

  /** Runs the task in a place already taken, and hands the place on when it settles. */
  private hold<T>(task: () => Promise<T>): Promise<T> {
    let running: Promise<T>;
    try {
      running = task();
    } catch (err) {
      running = Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return running.finally(this.release);
  }

  private readonly release = (): void => {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  };
}
