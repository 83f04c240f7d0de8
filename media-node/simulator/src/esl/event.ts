// One FreeSWITCH event as the event socket serialises it: an ordered list of headers and an
// optional body. Order matters because the traces show it and `text/event-plain` keeps it.

export type Header = readonly [name: string, value: string];

export interface FsEvent {
  readonly name: string;
  readonly headers: Header[];
  body?: string;
}

export function header(event: FsEvent, name: string): string | undefined {
  for (const [k, v] of event.headers) if (k === name) return v;
  return undefined;
}

// The characters FreeSWITCH's switch_url_encode escapes (plus controls and non-ASCII bytes),
// matching trace j: ' ', ':', '=', '{', '}', '&', '"', '<', '>', '|' are escaped; ',', '/', '(',
// ')', '-', '_', '.' are not.
const URL_UNSAFE = new Set('\r\n "#%&+:;<=>?@[\\]^`{|}'.split(''));

export function fsUrlEncode(value: string): string {
  let out = '';
  for (const byte of Buffer.from(value, 'utf8')) {
    const ch = String.fromCharCode(byte);
    if (byte < 32 || byte > 126 || URL_UNSAFE.has(ch)) {
      out += '%' + byte.toString(16).toUpperCase().padStart(2, '0');
    } else {
      out += ch;
    }
  }
  return out;
}

/** The event as `text/event-json`: every value a string, the body as `_body`. */
export function toJsonBody(event: FsEvent): string {
  const obj: Record<string, string> = {};
  for (const [k, v] of event.headers) obj[k] = v;
  if (event.body !== undefined) {
    obj['Content-Length'] = String(Buffer.byteLength(event.body));
    obj['_body'] = event.body;
  }
  return JSON.stringify(obj);
}

/** The event as `text/event-plain`: URL-encoded values, body after its own Content-Length. */
export function toPlainBody(event: FsEvent): string {
  let out = '';
  for (const [k, v] of event.headers) out += `${k}: ${fsUrlEncode(v)}\n`;
  if (event.body !== undefined) {
    out += `Content-Length: ${Buffer.byteLength(event.body)}\n\n${event.body}`;
  } else {
    out += '\n';
  }
  return out;
}

export type EventFormat = 'plain' | 'json';

/** The full socket frame, byte-compatible with the traces (Content-Length first). */
export function frameEvent(event: FsEvent, format: EventFormat): string {
  const body = format === 'json' ? toJsonBody(event) : toPlainBody(event);
  const type = format === 'json' ? 'text/event-json' : 'text/event-plain';
  return `Content-Length: ${Buffer.byteLength(body)}\nContent-Type: ${type}\n\n${body}`;
}
