// Resolves what `playback` is given to a duration, fetching HTTP URLs for real, as
// mod_http_cache would. Anything that cannot be fetched, found or read is "not found": the
// caller then fires no PLAYBACK_START/STOP, only EXECUTE_COMPLETE with FILE NOT FOUND.
import { readFile } from 'node:fs/promises';
import type { Logger } from '@voicegw/shared';
import { parseToneStream } from './tone-stream.js';
import { parseWav } from './wav.js';

export type Resolved = { readonly ok: true; readonly durationMs: number } | { readonly ok: false };

const NOT_FOUND: Resolved = { ok: false };
const MAX_BYTES = 64 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;
/** A tone_stream the simulator cannot render still plays, silent, this long. */
const TONE_MS = 1000;

export class MediaResolver {
  constructor(private readonly log: Logger) {}

  async resolve(path: string): Promise<Resolved> {
    const p = path.trim();
    if (p.startsWith('silence_stream://')) return silence(p.slice('silence_stream://'.length));
    if (p.startsWith('tone_stream://')) {
      const tone = parseToneStream(p);
      if (tone) return { ok: true, durationMs: tone.durationMs };
      return { ok: true, durationMs: p.includes('loops=-1') ? Infinity : TONE_MS };
    }
    if (p.startsWith('file_string://')) return this.fileString(p.slice('file_string://'.length));
    if (p.startsWith('http_cache://')) return this.fetchUrl(p.slice('http_cache://'.length));
    if (/^https?:\/\//i.test(p)) return this.fetchUrl(p);
    if (p.startsWith('/')) return this.local(p);
    // local_stream://, say:, shout:// and relative sound names are not installed in the sandbox.
    return NOT_FOUND;
  }

  private async fileString(list: string): Promise<Resolved> {
    let total = 0;
    for (const part of list.split('!')) {
      const r = await this.resolve(part);
      if (!r.ok) return NOT_FOUND;
      total += r.durationMs;
    }
    return { ok: true, durationMs: total };
  }

  private async fetchUrl(url: string): Promise<Resolved> {
    const buf = await this.fetchBytes(url);
    return buf ? fromBytes(buf, url) : NOT_FOUND;
  }

  /** An HTTP(S) file's bytes (a 200 within the time and size limits), else undefined. */
  async fetchBytes(url: string): Promise<Buffer | undefined> {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
      if (res.status !== 200) {
        await res.body?.cancel();
        this.log.debug({ url, status: res.status }, 'media fetch failed');
        return undefined;
      }
      const buf = Buffer.from(await res.arrayBuffer());
      return buf.length > MAX_BYTES ? undefined : buf;
    } catch (err) {
      this.log.debug({ url, err: (err as Error).message }, 'media fetch error');
      return undefined;
    }
  }

  private async local(path: string): Promise<Resolved> {
    try {
      return fromBytes(await readFile(path), path);
    } catch {
      return NOT_FOUND;
    }
  }
}

function silence(spec: string): Resolved {
  const ms = Number(spec.split(',')[0]);
  if (!Number.isFinite(ms)) return NOT_FOUND;
  return { ok: true, durationMs: ms <= 0 ? Infinity : ms };
}

/** WAV: the header's duration. MP3: estimated from the size at 128 kbit/s (no decoder here). */
function fromBytes(buf: Buffer, name: string): Resolved {
  const wav = parseWav(buf);
  if (wav) return { ok: true, durationMs: wav.durationMs };
  if (/\.mp3(\?|$)/i.test(name) && buf.length > 0) {
    return { ok: true, durationMs: Math.round((buf.length * 8) / 128) };
  }
  return NOT_FOUND;
}
