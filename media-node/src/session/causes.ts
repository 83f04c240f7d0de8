import type { HangupCause } from '@voicegw/shared';

/**
 * FreeSWITCH (Q.850) hangup causes → the contract's `hangup_cause`. Unlisted causes are
 * `failed`. ORIGINATOR_CANCEL means the caller gave up while it rang (no_answer), unless the
 * call had been answered.
 */
const TABLE: Readonly<Record<string, HangupCause>> = {
  NORMAL_CLEARING: 'completed',
  // sched_hangup's default cause: the call reached max_duration_sec, an orderly end.
  ALLOTTED_TIMEOUT: 'completed',
  USER_BUSY: 'busy',
  CALL_REJECTED: 'rejected',
  NO_ANSWER: 'no_answer',
  NO_USER_RESPONSE: 'no_answer',
  ORIGINATOR_CANCEL: 'no_answer',
  USER_NOT_REGISTERED: 'unavailable',
  SUBSCRIBER_ABSENT: 'unavailable',
  UNALLOCATED_NUMBER: 'unavailable',
  NO_ROUTE_DESTINATION: 'unavailable',
};

export function mapHangupCause(cause: string | undefined, answered: boolean): HangupCause {
  const name = (cause ?? '').trim().toUpperCase();
  if (name === 'ORIGINATOR_CANCEL' && answered) return 'completed';
  return TABLE[name] ?? 'failed';
}
