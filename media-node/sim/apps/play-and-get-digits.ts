// play_and_get_digits <min> <max> <tries> <timeout> <terminators> <file> <invalid_file> <var>
//   <regexp> [digit_timeout]
// Reports only through channel variables, as trace d shows: <var> (digits without the
// terminator, unset when nothing valid came), read_result (success|failure),
// read_terminator_used, <var>_invalid (the last invalid entry). Application-Response is _none_.
import type { AppImpl } from '../core/context.js';
import { FilePlayback } from './file-playback.js';

interface PagdArgs {
  min: number;
  max: number;
  tries: number;
  timeout: number;
  terminators: string;
  file: string;
  invalidFile: string;
  varName: string;
  regexp: RegExp | undefined;
  digitTimeout: number;
}

export function parsePagdArgs(arg: string): PagdArgs {
  const a = arg.trim().split(/\s+/);
  const num = (i: number, fallback: number) => {
    const n = Number(a[i]);
    return Number.isFinite(n) ? n : fallback;
  };
  const timeout = num(3, 3000);
  let regexp: RegExp | undefined;
  try {
    regexp = a[8] ? new RegExp(a[8]) : undefined;
  } catch {
    regexp = undefined;
  }
  const terminators = a[4] === 'none' ? '' : (a[4] ?? '#');
  return {
    min: num(0, 0),
    max: Math.max(1, num(1, 128)),
    tries: Math.max(1, num(2, 1)),
    timeout,
    terminators,
    file: a[5] ?? '',
    invalidFile: a[6] && a[6] !== 'none' ? a[6] : '',
    varName: a[7] ?? 'pagd_input',
    regexp,
    digitTimeout: num(9, timeout),
  };
}

export const playAndGetDigits: AppImpl = (ch, arg, ctx) => {
  const args = parsePagdArgs(arg);
  const media = new FilePlayback(ch, ctx);
  const queued: string[] = [];
  let wake: (() => void) | undefined;
  let collecting = false;

  /** Waits for the next digit; undefined on timeout or hangup. */
  const nextDigit = async (ms: number): Promise<string | undefined> => {
    if (queued.length > 0) return queued.shift();
    const waited = new Promise<void>((r) => (wake = r));
    const timedOut = media.pause(ms);
    await Promise.race([waited, timedOut]);
    wake = undefined;
    media.breakMedia();
    return queued.shift();
  };

  const readOnce = async (): Promise<{ digits: string; terminator: string }> => {
    collecting = true;
    if (args.file) await media.play(args.file);
    let digits = '';
    let first = true;
    while (!media.hungUp && digits.length < args.max) {
      const d = await nextDigit(first ? args.timeout : args.digitTimeout);
      first = false;
      if (d === undefined) break;
      if (args.terminators.includes(d)) {
        collecting = false;
        return { digits, terminator: d };
      }
      digits += d;
    }
    collecting = false;
    return { digits, terminator: '' };
  };

  const run = async (): Promise<string> => {
    for (let attempt = 0; attempt < args.tries && !media.hungUp; attempt++) {
      const { digits, terminator } = await readOnce();
      if (media.hungUp) break;
      if (terminator) ch.vars.set('read_terminator_used', terminator);
      const valid =
        (args.min === 0 && digits === '') ||
        (digits.length >= args.min && (!args.regexp || args.regexp.test(digits)));
      if (valid) {
        if (digits) ch.vars.set(args.varName, digits);
        ch.vars.set('read_result', 'success');
        return '_none_';
      }
      if (digits) ch.vars.set(`${args.varName}_invalid`, digits);
      if (args.invalidFile) await media.play(args.invalidFile);
    }
    ch.vars.delete(args.varName);
    ch.vars.set('read_result', 'failure');
    return '_none_';
  };

  return {
    done: run(),
    hangup: () => media.hangup(),
    breakMedia: () => media.breakMedia(),
    suspend: () => media.suspend(),
    resume: () => media.resume(),
    fileHandle: () => media.player,
    acceptsMessages: () => media.inMediaLoop,
    dtmf: (digit) => {
      if (!collecting) return;
      queued.push(digit);
      // The first digit barges into the prompt; later ones only wake the collector.
      if (media.player) media.breakMedia();
      wake?.();
    },
  };
};
