// The event socket carries bytes, and FreeSWITCH hands a command's bytes on as they came: a
// stream's metadata reaches its WebSocket server byte for byte, UTF-8 or not. Strings here keep
// the bytes that are not UTF-8 as lone surrogates U+DC80–U+DCFF (Python's `surrogateescape`),
// so they survive from the socket to wherever they go.
import { isUtf8 } from 'node:buffer';

const ESCAPED = /([\udc80-\udcff])/u;

/** Text of `bytes`: UTF-8, and each byte of a sequence that is not as U+DC00 + the byte. */
export function decodeBytes(bytes: Buffer): string {
  if (isUtf8(bytes)) return bytes.toString('utf8');
  let out = '';
  for (let i = 0; i < bytes.length;) {
    const n = utf8Length(bytes, i);
    out += n > 0 ? bytes.toString('utf8', i, i + n) : String.fromCharCode(0xdc00 + bytes[i]!);
    i += Math.max(n, 1);
  }
  return out;
}

/** The bytes `decodeBytes` made `text` of: UTF-8, each escaped byte as itself. */
export function encodeBytes(text: string): Buffer {
  if (!ESCAPED.test(text)) return Buffer.from(text, 'utf8');
  // split with a capturing group: the escapes at odd indexes.
  const parts = text.split(ESCAPED);
  return Buffer.concat(
    parts.map((p, i) => (i % 2 ? Buffer.of(p.charCodeAt(0) & 0xff) : Buffer.from(p, 'utf8'))),
  );
}

/** The length of the well-formed UTF-8 character at `at`, or 0. */
function utf8Length(bytes: Buffer, at: number): number {
  for (let n = 1; n <= 4 && at + n <= bytes.length; n++) {
    if (isUtf8(bytes.subarray(at, at + n))) return n;
  }
  return 0;
}
