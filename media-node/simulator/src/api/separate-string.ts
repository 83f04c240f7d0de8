// switch_separate_string (src/switch_utils.c), how FreeSWITCH's API commands split their
// arguments: on spaces outside single quotes (or on X after a leading `^^X`), at most `max`
// tokens, the last taking the rest of the line; each token then loses its single quotes, its
// backslash escapes (\n \r \t \s \' \" \\) and its surrounding spaces.

const ESCAPE = '\\';

function unescape(c: string): string {
  return c === 'n' ? '\n' : c === 'r' ? '\r' : c === 't' ? '\t' : c === 's' ? ' ' : c;
}

/** cleanup_separated_string */
function cleanup(token: string, delim: string | undefined): string {
  let i = 0;
  while (token[i] === ' ') i++;
  let out = '';
  let end = -1;
  let quoted = false;
  for (; i < token.length; i++) {
    const c = token[i]!;
    const next = token[i + 1];
    if (c === ESCAPE && next !== undefined) {
      const literal = next === "'" || next === '"' || next === delim || next === ESCAPE;
      if (literal || unescape(next) !== next) {
        out += literal ? next : unescape(next);
        end = out.length;
        i++;
        continue;
      }
    }
    if (c === "'" && (quoted || token.includes("'", i + 1))) {
      quoted = !quoted;
      if (quoted) end = out.length;
    } else {
      out += c;
      if (c !== ' ' || quoted) end = out.length;
    }
  }
  return end >= 0 ? out.slice(0, end) : out;
}

/**
 * separate_string_blank_delim and separate_string_char_delim: where each token starts, and where
 * a delimiter ended it (the C code writes a NUL there); the last token runs to the end.
 */
function split(buf: string, delim: string, max: number): string[] {
  const starts: number[] = [];
  const ends: number[] = [];
  const blank = delim === ' ';
  let state: 'start' | 'skipInitial' | 'findDelim' | 'skipEnding' = 'start';
  let quoted = false;
  let i = 0;
  while (i < buf.length && starts.length < max) {
    const c = buf[i];
    if (state === 'start') {
      starts.push(i);
      state = blank ? 'skipInitial' : 'findDelim';
    } else if (state === 'skipInitial') {
      if (c === ' ') i++;
      else state = 'findDelim';
    } else if (state === 'findDelim') {
      if (c === ESCAPE) i++;
      else if (c === "'" && (blank || quoted || buf.includes("'", i + 1))) quoted = !quoted;
      else if (c === delim && !quoted) {
        ends[starts.length - 1] = i;
        state = blank ? 'skipEnding' : 'start';
      }
      i++;
    } else if (c === ' ') i++;
    else state = 'start';
  }
  return starts.map((s, k) => buf.slice(s, ends[k] ?? buf.length));
}

export function separateString(buf: string, max: number): string[] {
  let delim = ' ';
  let rest = buf;
  if (buf.startsWith('^^') && buf.length > 3) {
    delim = buf[2]!;
    rest = buf.slice(3);
  }
  return split(rest, delim, max).map((t) => cleanup(t, delim === ' ' ? undefined : delim));
}
