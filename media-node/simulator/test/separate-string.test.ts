// switch_separate_string, as FreeSWITCH's API commands split their arguments.
import { describe, expect, it } from 'vitest';
import { separateString } from '../src/api/separate-string.js';

describe('separateString', () => {
  it.each([
    ['a b  c', 3, ['a', 'b', 'c']],
    ['  a b', 6, ['a', 'b']],
    ['a b c d e f g  h ', 6, ['a', 'b', 'c', 'd', 'e', 'f g  h']],
    [
      'u start ws://h/x mono 8k {"a": 1, "b": "x y"}',
      6,
      ['u', 'start', 'ws://h/x', 'mono', '8k', '{"a": 1, "b": "x y"}'],
    ],
    ["a 'b c' d", 6, ['a', 'b c', 'd']],
    // An escaped blank does not split, and stays escaped (only quotes, \\ and n r t s unescape).
    ['a b\\ c \\n \\s', 6, ['a', 'b\\ c', '\n', ' ']],
    ["it\\'s x", 6, ["it's", 'x']],
    ['^^|a|b c|d', 6, ['a', 'b c', 'd']],
    ['^^|a||b', 6, ['a', '', 'b']],
  ])('%j (at most %d)', (input, max, expected) => {
    expect(separateString(input, max)).toEqual(expected);
  });
});
