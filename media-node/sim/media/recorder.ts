// uuid_record: a session_record media bug. RECORD_START/MEDIA_BUG_START on start;
// RECORD_STOP (success-maxtime on stop or limit, success-silence on hangup) and MEDIA_BUG_STOP
// on stop, with the record_* variables. A `.wav` target gets a real file of generated audio.
import { stat, writeFile } from 'node:fs/promises';
import { dirname, extname } from 'node:path';
import type { Channel, MediaBug } from '../core/channel.js';
import { makeToneWav } from './wav.js';

const FORMATS = new Set(['.wav', '.mp3']);

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
      this.limitTimer = setTimeout(() => this.stop('success-maxtime'), limitSec * 1000);
    }
  }

  stopOnHangup(): void {
    this.stop('success-silence');
  }

  stop(cause: string): void {
    if (this.stopped) return;
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
    this.ch.fire('MEDIA_BUG_STOP', { pre: bugHeaders });
    if (extname(this.path).toLowerCase() === '.wav') {
      writeFile(this.path, makeToneWav(ms)).catch(() => undefined);
    }
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
      // The events follow the reply, as in trace e.
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
      setImmediate(() => targets.forEach((r) => r.stop('success-maxtime')));
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
