// The digits.collected status from what FreeSWITCH 1.10.12 leaves (trace d and the facts in
// ../shared/freeswitch/README.md): `<var>`, read_result, read_terminator_used, and the keys seen.
import { describe, expect, it } from 'vitest';
import { digitsResult, type DigitsReport } from '../../src/commands/digits-result.js';

const report = (r: Partial<DigitsReport>): DigitsReport => ({
  digits: undefined,
  readResult: undefined,
  terminatorUsed: undefined,
  keys: [],
  maxTries: 1,
  ...r,
});

describe('digits.collected from FreeSWITCH variables', () => {
  it('trace d1, 123#: success with the digits and the terminator', () => {
    const r = report({
      digits: '123',
      readResult: 'success',
      terminatorUsed: '#',
      keys: [...'123#'],
    });
    expect(digitsResult(r)).toEqual({ digits: '123', terminator: '#', status: 'success' });
  });

  it('trace d2, no input: timeout', () => {
    expect(digitsResult(report({ readResult: 'failure' }))).toEqual({
      digits: '',
      terminator: '',
      status: 'timeout',
    });
  });

  it('1# with min_digits 3 (read_result failure, partial digits, no _invalid): invalid', () => {
    const r = report({ digits: '1', readResult: 'failure', terminatorUsed: '#', keys: ['1', '#'] });
    expect(digitsResult(r)).toEqual({ digits: '1', terminator: '', status: 'invalid' });
  });

  it('a bare terminator with min_digits 1 is input, not a timeout', () => {
    const r = report({ readResult: 'failure', terminatorUsed: '#', keys: ['#'] });
    expect(digitsResult(r)).toMatchObject({ digits: '', status: 'invalid' });
  });

  it('every try used up with input is max_tries, even when the last try was silent', () => {
    const r = report({ readResult: 'failure', terminatorUsed: '#', keys: ['1', '#'], maxTries: 3 });
    expect(digitsResult(r)).toEqual({ digits: '', terminator: '', status: 'max_tries' });
  });

  it('enough digits then the digit timeout (read_result timeout) is success without terminator', () => {
    const r = report({
      digits: '12',
      readResult: 'timeout',
      terminatorUsed: '#',
      keys: ['#', '1', '2'],
      maxTries: 2,
    });
    expect(digitsResult(r)).toEqual({ digits: '12', terminator: '', status: 'success' });
  });

  it('max digits reached after an earlier try ended by # reports no terminator', () => {
    const r = report({
      digits: '1234',
      readResult: 'success',
      terminatorUsed: '#',
      keys: [...'1#1234'],
      maxTries: 2,
    });
    expect(digitsResult(r)).toEqual({ digits: '1234', terminator: '', status: 'success' });
  });

  it('min_digits 0 and a bare terminator is success with no digits', () => {
    const r = report({ readResult: 'success', terminatorUsed: '#', keys: ['#'] });
    expect(digitsResult(r)).toEqual({ digits: '', terminator: '#', status: 'success' });
  });
});
