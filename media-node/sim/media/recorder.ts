// uuid_record: a session_record media bug. RECORD_START/MEDIA_BUG_START on start;
// RECORD_STOP (success-maxtime on stop or limit, success-silence on hangup) and MEDIA_BUG_STOP
// on stop, with the record_* variables. A `.wav` target gets a real file of generated audio.
import { stat, writeFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import type { Channel, MediaBug } from '../core/channel.js';
import { makeToneWav } from './wav.js';

const FORMATS = new Set(['.wav', '.mp3']);
const OPEN_MS = 10;

class Recording implements MediaBug {
  private readonly startedAt = performance.now();
  private limitTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    readonly ch: Channel,
    readonly path: string,
    limitSec: number,
  ) {
    if (limitSec > 0) {
      // The limit counts recorded samples, so it ends a frame or two before the wall-clock limit (trace e2: 983 ms for 1 s).
      this.limitTimer = setTimeout(() => this.stop('success-maxtime')(), limitSec * 1000 - 40);
    }
  }

  stopOnHangup(): void {
    this.stop('success-silence')();
  }

  /** Fires RECORD_STOP; returns the MEDIA_BUG_STOP step, which `stop all` fires after all stops. */
  stop(cause: string): () => void {
    if (this.stopped) return () => undefined;
    this.stopped = true;
    clearTimeout(this.limitTimer);
    this.ch.bugs.delete(this);
    const ms = Math.round(performance.now() - this.startedAt);
    const samples = ms * 8;
    const bugHeaders: Array<[string, string]> = [
      ['Media-Bug-Function', 'session_record'],
      ['Media-Bug-Target', this.path],
    ];
    this.ch.vars.set('record_file_size', String(44 + samples * 2));
    this.ch.vars.set('record_samples', String(samples));
    this.ch.vars.set('record_seconds', String(Math.floor(ms / 1000)));
    this.ch.vars.set('record_ms', String(ms));
    this.ch.vars.set('record_completion_cause', cause);
    this.ch.fire('RECORD_STOP', {
      tail: [
        ['Record-File-Path', this.path],
        ['Record-Completion-Cause', cause],
      ],
    });
    if (extname(this.path).toLowerCase() === '.wav') {
      writeFile(this.path, makeToneWav(ms)).catch(() => undefined);
    }
    return () => this.ch.fire('MEDIA_BUG_STOP', { pre: bugHeaders });
  }
}

function recordings(ch: Channel): Recording[] {
  return [...ch.bugs].filter((b): b is Recording => b instanceof Recording);
}

export async function uuidRecord(ch: Channel, argv: string[]): Promise<string> {
  const [action, path = '', limit] = argv;
  switch (action) {
    case 'start': {
      if (!FORMATS.has(extname(path).toLowerCase()) || !(await isDir(dirname(path)))) {
        return '-ERR Cannot record session!\n';
      }
      const rec = new Recording(ch, path, Number(limit) || 0);
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
    case 'unmask':
      return recordings(ch).some((r) => r.path === path)
        ? '+OK Success\n'
        : '-ERR Cannot mask recording session!\n';
    default:
      return '-USAGE: <uuid> [start|stop|mask|unmask] <path> [<limit>]\n';
  }
}

async function isDir(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}
