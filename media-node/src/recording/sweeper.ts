import { rm, rmdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isSessionId, type Logger, type RecordingStore } from '@voicegw/shared';

const BATCH = 100;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Retention: deletes the files and metadata of recordings whose expiry (stop + retention) has
 * passed, from the expiry set in Redis. Every node sweeps (RECORDINGS_DIR is one volume shared
 * by the cluster), and needs no lock: deleting a file twice is harmless and the metadata goes
 * in one script that only removes what is due. The file goes first, so a sweep that dies
 * half-way leaves metadata for the next one rather than a file nobody knows about. The api
 * answers 404 from the expiry time on, whenever the sweep runs.
 */
export class RecordingSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly store: RecordingStore,
    private readonly dir: string,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.running ??= this.sweep().finally(() => (this.running = undefined));
    }, this.intervalMs);
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One sweep; resolves with the number of recordings deleted. Never rejects. */
  async sweep(now = Date.now()): Promise<number> {
    let deleted = 0;
    try {
      for (;;) {
        const due = await this.store.due(now, BATCH);
        for (const rec of due) {
          // Ids come from Redis: never let a strange one become a path outside the directory.
          if (isSessionId(rec.sessionId) && UUID.test(rec.recordingId)) {
            await rm(join(this.dir, rec.path), { force: true });
            await rmdir(join(this.dir, rec.sessionId)).catch(() => undefined);
          }
          if (await this.store.expire(rec, now)) deleted++;
        }
        if (due.length < BATCH) break;
      }
    } catch (err) {
      this.log.warn({ err }, 'recording sweep failed');
    }
    if (deleted > 0) this.log.info({ deleted }, 'expired recordings deleted');
    return deleted;
  }
}
