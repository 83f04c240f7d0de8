/** One event-socket frame: its headers, then as many bytes of body as its Content-Length says. */
export interface Frame {
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** An event as `event json` or `event plain` delivers it: headers by name, the body as `_body`. */
export type Ev = Record<string, string> & { _body?: string };

/**
 * Cuts the bytes of an event socket into frames: header lines up to a blank line, then the body
 * if the headers carry a Content-Length (counted in bytes, so a body is cut from the bytes, not
 * from decoded text).
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  /** The headers of a frame whose body has not all arrived yet. */
  private head: Record<string, string> | undefined;
  private bodyLength = 0;

  constructor(private readonly onFrame: (frame: Frame) => void) {}

  push(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (!this.head) {
        const end = this.buffer.indexOf('\n\n');
        if (end < 0) return;
        this.head = headerLines(this.buffer.toString('utf8', 0, end), false);
        this.bodyLength = Number(this.head['Content-Length'] ?? 0);
        this.buffer = this.buffer.subarray(end + 2);
      }
      if (this.buffer.length < this.bodyLength) return;
      const frame = { headers: this.head, body: this.buffer.toString('utf8', 0, this.bodyLength) };
      this.buffer = this.buffer.subarray(this.bodyLength);
      this.head = undefined;
      this.onFrame(frame);
    }
  }
}

/** The event an event frame carries; undefined for any other frame (replies, disconnect notice). */
export function eventOf(frame: Frame): Ev | undefined {
  switch (frame.headers['Content-Type']) {
    case 'text/event-json':
      return JSON.parse(frame.body) as Ev;
    case 'text/event-plain':
      return plainEvent(frame.body);
    default:
      return undefined;
  }
}

/**
 * An `event plain` body: URL-encoded header lines, a blank line, and the event's own body when
 * its headers carry a Content-Length (the rest of the frame, which the frame's length bounds).
 */
function plainEvent(text: string): Ev {
  const end = text.indexOf('\n\n');
  const event: Ev = headerLines(end < 0 ? text : text.slice(0, end), true);
  if (end >= 0 && event['Content-Length'] !== undefined) event._body = text.slice(end + 2);
  return event;
}

/** `Name: value` lines; a frame's own headers are sent as they are, a plain event's URL-encoded. */
function headerLines(text: string, urlEncoded: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const colon = line.indexOf(': ');
    if (colon <= 0) continue;
    const value = line.slice(colon + 2);
    headers[line.slice(0, colon)] = urlEncoded ? decodeURIComponent(value) : value;
  }
  return headers;
}
