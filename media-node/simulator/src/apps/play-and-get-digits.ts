// play_and_get_digits <min> <max> <tries> <timeout> <terminators> <file> <invalid_file> <var>
//   <regexp> [digit_timeout]
// As switch_play_and_get_digits / switch_ivr_read (switch_ivr_play_say.c) do it, reporting only
// through channel variables (trace d): each try clears read_result and <var>, plays the prompt
// (the first key barges in), collects keys until a terminator, max digits or a timeout, sets
// read_terminator_used when a terminator ended it, read_result `success` (terminator or max
// digits), `timeout` (timed out with at least min digits) or `failure` (too few: `<var>` keeps
// the partial digits), and <var> to the digits. Only a completed read that fails the regexp
// sets <var>_invalid (and unsets <var>). Nothing is cleared after the last try.
// Application-Response is _none_.
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
  const min = num(0, 0);
  return {
    min,
    // switch_ivr_read forces max up to min.
    max: Math.max(1, min, num(1, 128)),
    tries: Math.max(1, num(2, 1)),
    timeout,
    terminators,
    file: a[5] ?? '',
    invalidFile: a[6] && a[6] !== 'none' ? a[6] : '',
    varName: a[7] ?? 'pagd_input',
    regexp,
    digitTimeout: num(9, 0) || timeout,
  };
}

/** switch_ivr_read's outcome: SWITCH_STATUS_SUCCESS, _TIMEOUT, _TOO_SMALL or _FALSE (hangup). */
type ReadStatus = 'success' | 'timeout' | 'too_small' | 'false';

export const playAndGetDigits: AppImpl = (ch, arg, ctx) => {
  const args = parsePagdArgs(arg);
  const media = new FilePlayback(ch, ctx);
  // The channel's DTMF queue: keys wait here (through the invalid-input file too) until read.
  const queued: string[] = [];
  let wake: (() => void) | undefined;
  let prompting = false;

  /** The next key, waiting up to `ms`; undefined on timeout or hangup. */
  const nextDigit = async (ms: number): Promise<string | undefined> => {
    if (queued.length === 0) {
      const waited = new Promise<void>((r) => (wake = r));
      const timedOut = media.pause(ms);
      await Promise.race([waited, timedOut]);
      wake = undefined;
      media.breakMedia();
    }
    return media.hungUp ? undefined : queued.shift();
  };

  /** One switch_ivr_read; leaves the digits in <var> and read_result as FreeSWITCH does. */
  const read = async (): Promise<{ status: ReadStatus; digits: string }> => {
    ch.vars.delete('read_result');
    ch.vars.delete(args.varName);
    // A key already queued barges in before the prompt's first frame.
    if (args.file && queued.length === 0) {
      prompting = true;
      await media.play(args.file);
      prompting = false;
    }
    let digits = '';
    let terminator = '';
    let status: ReadStatus = 'false';
    while (!media.hungUp) {
      if (digits.length >= args.max) {
        status = 'success';
        break;
      }
      // The first wait is the try's timeout; once a key came, the inter-digit timeout.
      const key = await nextDigit(digits || terminator ? args.digitTimeout : args.timeout);
      if (media.hungUp) break;
      if (key === undefined) {
        status = 'timeout';
        break;
      }
      if (args.terminators.includes(key)) {
        terminator = key;
        status = 'success';
        break;
      }
      digits += key;
    }
    if (terminator) ch.vars.set('read_terminator_used', terminator);
    if (args.min > 0 && digits.length < args.min) status = 'too_small';
    ch.vars.set('read_result', readResult(status));
    if (digits) ch.vars.set(args.varName, digits);
    return { status, digits };
  };

  const run = async (): Promise<string> => {
    if (args.regexp) ch.vars.delete(`${args.varName}_invalid`);
    for (let tries = args.tries; tries > 0 && !media.hungUp; tries--) {
      const { status: readStatus, digits } = await read();
      // A timeout after enough digits is a completed read.
      const status = readStatus === 'timeout' && digits.length >= args.min ? 'success' : readStatus;
      if (args.min === 0 && digits === '' && ch.vars.has('read_terminator_used')) return '_none_';
      if (status === 'success' && digits !== '') {
        if (!args.regexp || args.regexp.test(digits)) return '_none_';
        ch.vars.delete(args.varName);
        ch.vars.set(`${args.varName}_invalid`, digits);
      }
      if (media.hungUp) break;
      if (args.invalidFile) await media.play(args.invalidFile);
    }
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
      queued.push(digit);
      // A key barges into the prompt and wakes the collector; the invalid-input file plays on.
      if (prompting) media.breakMedia();
      wake?.();
    },
  };
};

const readResult = (status: ReadStatus): string =>
  status === 'success' ? 'success' : status === 'timeout' ? 'timeout' : 'failure';
