import { describe, expect, it } from 'vitest';
import { mapHangupCause } from '../../src/index.js';

describe('Q.850 hangup causes map onto the contract hangup_cause', () => {
  it.each([
    ['NORMAL_CLEARING', 'completed'],
    ['ALLOTTED_TIMEOUT', 'completed'],
    ['USER_BUSY', 'busy'],
    ['CALL_REJECTED', 'rejected'],
    ['NO_ANSWER', 'no_answer'],
    ['NO_USER_RESPONSE', 'no_answer'],
    ['ORIGINATOR_CANCEL', 'no_answer'],
    ['USER_NOT_REGISTERED', 'unavailable'],
    ['SUBSCRIBER_ABSENT', 'unavailable'],
    ['UNALLOCATED_NUMBER', 'unavailable'],
    ['NO_ROUTE_DESTINATION', 'unavailable'],
    ['NORMAL_TEMPORARY_FAILURE', 'failed'],
    ['CHAN_NOT_IMPLEMENTED', 'failed'],
    ['MEDIA_TIMEOUT', 'failed'],
  ])('%s before an answer is %s', (cause, expected) => {
    expect(mapHangupCause(cause, false)).toBe(expected);
  });

  it('ORIGINATOR_CANCEL after an answer is completed', () => {
    expect(mapHangupCause('ORIGINATOR_CANCEL', true)).toBe('completed');
  });

  it('a missing or unknown cause is failed', () => {
    expect(mapHangupCause(undefined, true)).toBe('failed');
    expect(mapHangupCause('SOMETHING_NEW', true)).toBe('failed');
  });

  it('the cause name is matched whatever its case', () => {
    expect(mapHangupCause('user_busy', false)).toBe('busy');
  });
});
