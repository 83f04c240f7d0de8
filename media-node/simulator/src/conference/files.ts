// The file player of a conference room or of one member: files queue one after another (or
// play at once with `async`), can be paused (a toggle), seeked and stopped; play-file and
// play-file-done events (or their -member forms) announce them.
import type { Header } from '../esl/event.js';
import type { MediaResolver } from '../media/audio-source.js';
import { Player } from '../media/player.js';
import { TEARDOWN_DELAY_MS } from '../core/timing.js';

type Emit = (action: string, before: Header[], after: Header[]) => void;

interface Entry {
  readonly file: string;
  readonly player: Player;
  started: boolean;
}

export class ConferenceFiles {
  private readonly queue: Entry[] = [];
  private readonly asyncs = new Set<Entry>();

  constructor(
    private readonly media: MediaResolver,
    private readonly action: string,
    private readonly emit: Emit,
  ) {}

  get playing(): boolean {
    return this.queue.length > 0 || this.asyncs.size > 0;
  }

  /** Resolves the file; `false` when it cannot be played (the event then carries Error). */
  async play(file: string, async: boolean): Promise<boolean> {
    const resolved = await this.media.resolve(file);
    if (!resolved.ok) {
      setTimeout(
        () =>
          this.emit(
            this.action,
            [],
            [
              ['File', file],
              ['Async', String(async)],
              ['Error', 'File could not be played'],
            ],
          ),
        TEARDOWN_DELAY_MS,
      );
      return false;
    }
    const entry: Entry = { file, player: new Player(resolved.durationMs), started: false };
    this.emit(this.action, [], [['File', file]]);
    if (async) {
      this.asyncs.add(entry);
      void this.run(entry, () => this.asyncs.delete(entry));
    } else {
      this.queue.push(entry);
      if (this.queue.length === 1) this.startHead();
    }
    return true;
  }

  /** Toggles pause of the current file; undefined when nothing plays. */
  togglePause(): boolean | undefined {
    return this.current()?.player.togglePause();
  }

  seek(spec: string): boolean {
    const cur = this.current();
    if (!cur) return false;
    cur.player.seek(spec);
    return true;
  }

  /** stop current|all|last: returns how many files were stopped. */
  stop(which: string): number {
    if (which === 'all') return this.stopAll();
    const target = which === 'last' ? this.queue.at(-1) : this.current();
    if (!target) return 0;
    target.player.stop();
    if (!target.started) this.queue.splice(this.queue.indexOf(target), 1);
    return 1;
  }

  stopAll(): number {
    const waiting = this.queue.splice(1);
    const running = [...this.queue, ...this.asyncs];
    for (const e of running) e.player.stop();
    return running.length + waiting.length;
  }

  private current(): Entry | undefined {
    return this.queue[0] ?? [...this.asyncs][0];
  }

  private startHead(): void {
    const head = this.queue[0];
    if (!head) return;
    void this.run(head, () => {
      this.queue.shift();
      this.startHead();
    });
  }

  private async run(entry: Entry, after: () => void): Promise<void> {
    entry.started = true;
    await entry.player.start();
    const ms = Math.round(Math.min(entry.player.position(), entry.player.durationMs));
    after();
    this.emit(
      `${this.action}-done`,
      [
        ['seconds', String(Math.floor(ms / 1000))],
        ['milliseconds', String(ms)],
        ['samples', String(ms * 8)],
      ],
      [['File', entry.file]],
    );
  }
}
