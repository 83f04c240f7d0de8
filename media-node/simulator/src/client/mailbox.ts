/** How long a value nobody has asked for yet is kept; nobody waits for most of them. */
const EARLY_TTL_MS = 30_000;

/**
 * Values delivered under keys, awaited by key: a value that arrives before anyone waits is kept
 * (for 30 s) so that `once` finds it, and one that arrives for a waiter resolves it at once. A
 * key has one waiter at a time; a second `once` on it replaces the first.
 */
export class KeyedMailbox<T> {
  private readonly waiters = new Map<string, (value: T) => void>();
  private readonly early = new Map<string, { value: T; at: number }>();

  /** The value with this key, already delivered or within `timeoutMs`. */
  once(key: string, timeoutMs: number): Promise<T> {
    const early = this.early.get(key);
    if (early) {
      this.early.delete(key);
      return Promise.resolve(early.value);
    }
    return new Promise((resolve, reject) => {
      const settle = (value: T): void => {
        clearTimeout(timer);
        resolve(value);
      };
      const timer = setTimeout(() => {
        if (this.waiters.get(key) === settle) this.waiters.delete(key);
        reject(new Error(`no ${key} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.set(key, settle);
    });
  }

  deliver(keys: readonly string[], value: T): void {
    const now = Date.now();
    for (const key of keys) {
      const waiter = this.waiters.get(key);
      if (waiter) {
        this.waiters.delete(key);
        waiter(value);
      } else {
        this.early.delete(key); // re-inserted last, so the map stays in arrival order
        this.early.set(key, { value, at: now });
      }
    }
    for (const [key, { at }] of this.early) {
      if (now - at < EARLY_TTL_MS) break;
      this.early.delete(key);
    }
  }
}
