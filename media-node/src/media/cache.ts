import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface MediaCacheOptions {
  /** Directory of this node's cache (emptied at start: the index lives in memory). */
  readonly dir: string;
  /** The same directory as FreeSWITCH sees it (a shared volume may be mounted elsewhere). */
  readonly fsDir: string;
  readonly maxBytes: number;
  readonly maxFileBytes: number;
  readonly fetchTimeoutMs: number;
  /** How long a fetched file is reused when the response gives no max-age. */
  readonly ttlMs: number;
}

interface Entry {
  readonly file: string;
  readonly size: number;
  readonly expiresAt: number;
  /** Playbacks using the file; a pinned file is never evicted. */
  pins: number;
}

export class MediaFetchError extends Error {
  constructor(
    readonly url: string,
    reason: string,
  ) {
    super(`${url}: ${reason}`);
    this.name = 'MediaFetchError';
  }
}

const EXTENSIONS: Readonly<Record<string, string>> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
};
const KNOWN_EXTENSIONS = new Set(['wav', 'mp3', 'ogg', 'opus', 'flac', 'gsm', 'ul', 'al', 'raw']);

/**
 * A bounded local LRU cache of audio fetched over HTTP (Node's fetch, which is undici). FreeSWITCH
 * plays the cached files, so every URL is known to be reachable and complete before playback
 * starts, and a failure names the URL that failed. Files keep an audio extension, which is how
 * FreeSWITCH picks the format module. Concurrent requests for one URL share one download.
 */
export class MediaCache {
  private readonly entries = new Map<string, Entry>();
  private readonly downloads = new Map<string, Promise<Entry>>();
  private bytes = 0;

  constructor(private readonly o: MediaCacheOptions) {}

  async init(): Promise<void> {
    await rm(this.o.dir, { recursive: true, force: true });
    await mkdir(this.o.dir, { recursive: true });
  }

  get size(): { readonly files: number; readonly bytes: number } {
    return { files: this.entries.size, bytes: this.bytes };
  }

  /**
   * Local paths (as FreeSWITCH sees them) of every URL, pinned until `release`. Rejects with
   * the list of URLs that failed when any did.
   */
  async acquire(urls: readonly string[]): Promise<string[]> {
    const results = await Promise.allSettled(urls.map((url) => this.get(url)));
    const failed = urls.filter((_url, i) => results[i]?.status === 'rejected');
    if (failed.length > 0) {
      results.forEach((r) => r.status === 'fulfilled' && (r.value.pins -= 1));
      throw new MediaUnavailableError(failed);
    }
    return results.map((r) => join(this.o.fsDir, (r as PromiseFulfilledResult<Entry>).value.file));
  }

  /** Unpins the files of an ended playback. */
  release(urls: readonly string[]): void {
    for (const url of urls) {
      const entry = this.entries.get(url);
      if (entry && entry.pins > 0) entry.pins -= 1;
    }
    void this.evict();
  }

  private async get(url: string): Promise<Entry> {
    const cached = this.entries.get(url);
    if (cached && cached.expiresAt > Date.now()) {
      // LRU: a hit moves to the young end of the map.
      this.entries.delete(url);
      this.entries.set(url, cached);
      cached.pins += 1;
      return cached;
    }
    let download = this.downloads.get(url);
    if (!download) {
      download = this.download(url).finally(() => this.downloads.delete(url));
      this.downloads.set(url, download);
    }
    const entry = await download;
    entry.pins += 1;
    return entry;
  }

  private async download(url: string): Promise<Entry> {
    let res: Response;
    try {
      res = await fetch(url, { signal: AbortSignal.timeout(this.o.fetchTimeoutMs) });
    } catch (err) {
      throw new MediaFetchError(url, err instanceof Error ? err.message : String(err));
    }
    if (res.status !== 200 || !res.body) {
      await res.body?.cancel();
      throw new MediaFetchError(url, `HTTP ${res.status}`);
    }
    const declared = Number(res.headers.get('content-length'));
    if (declared > this.o.maxFileBytes) {
      await res.body.cancel();
      throw new MediaFetchError(url, 'file too large');
    }
    const file = `${createHash('sha256').update(url).digest('hex').slice(0, 32)}.${extension(url, res)}`;
    const partial = join(this.o.dir, `${file}.${randomUUID()}.part`);
    let size = 0;
    const limit = this.o.maxFileBytes;
    const counter = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        done(size > limit ? new Error('file too large') : null, chunk);
      },
    });
    try {
      await pipeline(Readable.fromWeb(res.body), counter, createWriteStream(partial));
      if (size === 0) throw new Error('empty body');
      await rename(partial, join(this.o.dir, file));
    } catch (err) {
      await unlink(partial).catch(() => undefined);
      throw new MediaFetchError(url, err instanceof Error ? err.message : String(err));
    }
    const previous = this.entries.get(url);
    if (previous) this.forget(url, previous);
    const entry: Entry = {
      file,
      size,
      expiresAt: Date.now() + freshFor(res, this.o.ttlMs),
      pins: 0,
    };
    this.entries.set(url, entry);
    this.bytes += size;
    await this.evict();
    return entry;
  }

  /** Drops least recently used, unpinned files until the cache fits. */
  private async evict(): Promise<void> {
    for (const [url, entry] of this.entries) {
      if (this.bytes <= this.o.maxBytes) return;
      if (entry.pins > 0) continue;
      this.forget(url, entry);
      await unlink(join(this.o.dir, entry.file)).catch(() => undefined);
    }
  }

  private forget(url: string, entry: Entry): void {
    this.entries.delete(url);
    this.bytes -= entry.size;
  }
}

export class MediaUnavailableError extends Error {
  constructor(readonly urls: readonly string[]) {
    super(`could not fetch ${urls.join(', ')}`);
    this.name = 'MediaUnavailableError';
  }
}

function extension(url: string, res: Response): string {
  const fromPath = /\.([a-z0-9]{1,5})$/i.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  if (fromPath && KNOWN_EXTENSIONS.has(fromPath)) return fromPath;
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return EXTENSIONS[type] ?? 'wav';
}

/** Cache-Control: no-store/no-cache → not reused; max-age wins over the default TTL. */
function freshFor(res: Response, fallbackMs: number): number {
  const control = res.headers.get('cache-control') ?? '';
  if (/no-store|no-cache/i.test(control)) return 0;
  const maxAge = /max-age=(\d+)/i.exec(control)?.[1];
  return maxAge === undefined ? fallbackMs : Number(maxAge) * 1000;
}
