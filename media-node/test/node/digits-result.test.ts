// The digits.collected status from what FreeSWITCH 1.10.12 leaves (its recording d, fixture
// media-node/simulator/test/fixtures/traces/d_dtmf.json): `<var>`, read_result,
// read_terminator_used, and the keys seen.
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
  it.each<[string, Partial<DigitsReport>, ReturnType<typeof digitsResult>]>([
    [
      'trace d1, 123#: success with the digits and the terminator',
      { digits: '123', readResult: 'success', terminatorUsed: '#', keys: [...'123#'] },
      { digits: '123', terminator: '#', status: 'success' },
    ],
    [
      'trace d2, no input: timeout',
      { readResult: 'failure' },
      { digits: '', terminator: '', status: 'timeout' },
    ],
    [
      '1# with min_digits 3 (read_result failure, partial digits, no _invalid): invalid',
      { digits: '1', readResult: 'failure', terminatorUsed: '#', keys: ['1', '#'] },
      { digits: '1', terminator: '', status: 'invalid' },
    ],
    [
      'every try used up with input is max_tries, even when the last try was silent',
      { readResult: 'failure', terminatorUsed: '#', keys: ['1', '#'], maxTries: 3 },
      { digits: '', terminator: '', status: 'max_tries' },
    ],
    [
      'enough digits then the digit timeout (read_result timeout) is success without terminator',
      { digits: '12', readResult: 'timeout', terminatorUsed: '#', keys: [...'#12'], maxTries: 2 },
      { digits: '12', terminator: '', status: 'success' },
    ],
    [
      'max digits reached after an earlier try ended by # reports no terminator',
      {
        digits: '1234',
        readResult: 'success',
        terminatorUsed: '#',
        keys: [...'1#1234'],
        maxTries: 2,
      },
      { digits: '1234', terminator: '', status: 'success' },
    ],
    [
      'min_digits 0 and a bare terminator is success with no digits',
      { readResult: 'success', terminatorUsed: '#', keys: ['#'] },
      { digits: '', terminator: '#', status: 'success' },
    ],
  ])('%s', (_what, fields, collected) => {
    expect(digitsResult(report(fields))).toEqual(collected);
  });

  it('a bare terminator with min_digits 1 is input, not a timeout', () => {
    const r = report({ readResult: 'failure', terminatorUsed: '#', keys: ['#'] });
    expect(digitsResult(r)).toMatchObject({ digits: '', status: 'invalid' });
  });
});
