import type { EventPayload } from '@voicegw/shared';

type Collected = Pick<EventPayload<'digits.collected'>, 'digits' | 'terminator' | 'status'>;

/** What FreeSWITCH's play_and_get_digits leaves behind, plus the keys the node saw meanwhile. */
export interface DigitsReport {
  /** `<var>`: the last try's digits without the terminator (also a too-short entry); unset when none. */
  readonly digits: string | undefined;
  /** `read_result` of the last try: `success`, `timeout` (enough digits, then silence) or `failure`. */
  readonly readResult: string | undefined;
  /** `read_terminator_used` (cleared before the run, so it is this run's). */
  readonly terminatorUsed: string | undefined;
  /** DTMF keys seen on the channel while it ran, in order. */
  readonly keys: readonly string[];
  readonly maxTries: number;
}

/**
 * digits.collected from what FreeSWITCH reports. With the node's catch-all regexp a try
 * succeeds exactly when its read completed: `read_result` success (terminator or max digits),
 * or `timeout` with digits in `<var>` (FreeSWITCH takes a timeout after min_digits as
 * complete). Otherwise every try failed and `<var>_invalid` tells nothing (FreeSWITCH sets it
 * only when a completed read fails the regexp): a run in which no key was pressed is `timeout`;
 * one with keys is `invalid` on a single try and `max_tries` when several were used up, with
 * the last try's partial digits (FreeSWITCH clears `<var>` at each try). The terminator is
 * reported on success only, and only when it was the last key pressed (read_terminator_used is
 * not cleared between tries, so it may be an earlier try's).
 */
export function digitsResult(report: DigitsReport): Collected {
  const { digits = '', readResult, terminatorUsed = '', keys, maxTries } = report;
  const terminator = terminatorUsed !== '' && keys.at(-1) === terminatorUsed ? terminatorUsed : '';
  const complete = readResult === 'success' || (readResult === 'timeout' && digits !== '');
  if (complete)
    return { digits, terminator: readResult === 'success' ? terminator : '', status: 'success' };
  const pressed = keys.length > 0 || digits !== '' || terminatorUsed !== '';
  if (!pressed) return { digits: '', terminator: '', status: 'timeout' };
  return { digits, terminator: '', status: maxTries > 1 ? 'max_tries' : 'invalid' };
}
