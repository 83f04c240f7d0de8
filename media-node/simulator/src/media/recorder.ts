// uuid_record: a session_record media bug. RECORD_START/MEDIA_BUG_START on start;
// RECORD_STOP (success-maxtime on stop or limit, success-silence on hangup) and MEDIA_BUG_STOP
// on stop, with the record_* variables. A `.wav` target is a real file written as FreeSWITCH
// (libsndfile) writes it: the header with zero sizes at the start, the call's audio (a tone)
// appended in real time, the sizes patched when the file is closed, before RECORD_STOP.
import { closeSync, open, writeSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { promisify } from 'node:util';
import { dirname, extname } from 'node:path';
import { wavHeader } from '@voicegw/shared';
import type { Channel, MediaBug } from '../core/channel.js';
import { CALL_RATE as RATE, msToSamples, nowSample } from './clock.js';
import { toL16 } from './pcm.js';

const FORMATS = new Set(['.wav', '.mp3']);
const OPEN_MS = 10;
/** How often the audio due so far is appended (FreeSWITCH's record thread buffers similarly). */
const WRITE_MS = 100;
/** Appends stay this far behind now, so that a stream's write thread has put its frames in. */
const LAG_SAMPLES = msToSamples(60);

const openFd = promisify(open);

/**
 * The growing WAV of one recording. Opened asynchronously (FreeSWITCH's open takes a while too);
 * written and closed synchronously, which keeps RECORD_STOP in its place on hangup.
 */
class WavFile {
  private samples = 0;
  private masked = false;

  constructor(private readonly fd: number) {
    writeSync(fd, wavHeader(0, RATE), 0, 44, 0);
  }

  static async open(path: string): Promise<WavFile | undefined> {
    try {
      await mkdir(dirname(path), { recursive: true });
      return new WavFile(await openFd(path, 'w'));
    } catch {
      return undefined;
    }
  }

  mask(on: boolean): void {
    this.masked = on;
  }

  /** Appends the samples up to `totalSamples`: `read(offset, count)`, or silence while masked. */
  writeUpTo(totalSamples: number, read: (offset: number, count: number) => Int16Array): void {
    const count = totalSamples - this.samples;
    if (count <= 0) return;
    const data = this.masked ? Buffer.alloc(count * 2) : toL16(read(this.samples, count));
    writeSync(this.fd, data, 0, data.length, 44 + this.samples * 2);
    this.samples = totalSamples;
  }

  close(): void {
    writeSync(this.fd, wavHeader(this.samples * 2, RATE), 0, 44, 0);
    closeSync(this.fd);
  }
}

class Recording implements MediaBug {
  /** The clock sample it began at: sample i of the file is the call's audio at start + i. */
  private readonly start = nowSample();
  private limitTimer: NodeJS.Timeout | undefined;
  private writer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly ch: Channel,
    readonly path: string,
    limitSec: number,
    private readonly file: WavFile | undefined,
  ) {
    if (limitSec > 0) {
      // The limit counts recorded samples, so it ends a frame or two before the wall-clock limit (trace e2: 983 ms for 1 s).
      this.limitTimer = setTimeout(() => this.stop('success-maxtime')(), limitSec * 1000 - 40);
    }
    if (file) {
      this.writer = setInterval(
        () => file.writeUpTo(Math.max(0, this.samplesNow() - LAG_SAMPLES), this.read),
        WRITE_MS,
      );
      this.writer.unref();
    }
  }

  mask(on: boolean): void {
    this.file?.writeUpTo(this.samplesNow(), this.read);
    this.file?.mask(on);
  }

  stopOnHangup(): void {
    this.stop('success-silence')();
  }

  /** Fires RECORD_STOP; returns the MEDIA_BUG_STOP step, which `stop all` fires after all stops. */
  stop(cause: string): () => void {
    if (this.stopped) return () => undefined;
    this.stopped = true;
    clearTimeout(this.limitTimer);
    clearInterval(this.writer);
    this.ch.bugs.delete(this);
    const samples = this.samplesNow();
    const ms = Math.floor(samples / (RATE / 1000));
    try {
      this.file?.writeUpTo(samples, this.read);
      this.file?.close();
    } catch {
      // The file went away under the recording; FreeSWITCH reports the stop all the same.
    }
    const bugHeaders: Array<[string, string]> = [
      ['Media-Bug-Function', 'session_record'],
      ['Media-Bug-Target', this.path],
    ];
    this.ch.vars.set('record_file_size', String(44 + samples * 2));
    this.ch.vars.set('record_samples', String(samples));
    this.ch.vars.set('record_seconds', String(Math.floor(samples / RATE)));
    this.ch.vars.set('record_ms', String(ms));
    this.ch.vars.set('record_completion_cause', cause);
    this.ch.fire('RECORD_STOP', {
      tail: [
        ['Record-File-Path', this.path],
        ['Record-Completion-Cause', cause],
      ],
    });
    return () => this.ch.fire('MEDIA_BUG_STOP', { pre: bugHeaders });
  }

  /** What the call says and hears, mixed, as FreeSWITCH records a call. */
  private readonly read = (offset: number, count: number): Int16Array =>
    this.ch.audio.both(this.start + offset, count);

  private samplesNow(): number {
    return nowSample() - this.start;
  }
}

function recordings(ch: Channel): Recording[] {
  return [...ch.bugs].filter((b): b is Recording => b instanceof Recording);
}

export async function uuidRecord(ch: Channel, argv: string[]): Promise<string> {
  const [action, path = '', limit] = argv;
  switch (action) {
    case 'start': {
      const ext = extname(path).toLowerCase();
      if (!FORMATS.has(ext)) return '-ERR Cannot record session!\n';
      // FreeSWITCH creates the directory (a parent that is a regular file fails) and opens the file.
      const file = ext === '.wav' ? await WavFile.open(path) : undefined;
      if (ext === '.wav' && !file) return '-ERR Cannot record session!\n';
      const rec = new Recording(ch, path, Number(limit) || 0, file);
      ch.bugs.add(rec);
      // Opening the file takes FreeSWITCH ~10 ms; the events follow the reply (trace e).
      await new Promise((r) => setTimeout(r, OPEN_MS));
      setImmediate(() => {
        ch.fire('RECORD_START', { tail: [['Record-File-Path', path]] });
        ch.fire('MEDIA_BUG_START', {
          pre: [
            ['Media-Bug-Function', 'session_record'],
            ['Media-Bug-Target', path],
          ],
        });
      });
      return '+OK Success\n';
    }
    case 'stop': {
      const targets =
        path === 'all' ? recordings(ch) : recordings(ch).filter((r) => r.path === path);
      if (targets.length === 0) return '-ERR Cannot stop record session!\n';
      setImmediate(() => {
        const bugStops = targets.map((r) => r.stop('success-maxtime'));
        for (const fire of bugStops) fire();
      });
      return '+OK Success\n';
    }
    case 'mask':
    case 'unmask': {
      const targets = recordings(ch).filter((r) => r.path === path);
      for (const r of targets) r.mask(action === 'mask');
      return targets.length > 0 ? '+OK Success\n' : '-ERR Cannot mask recording session!\n';
    }
    default:
      return '-USAGE: <uuid> [start|stop|mask|unmask] <path> [<limit>]\n';
  }
}
