// Replies the event socket writes, and the parser for what clients send. The byte layout of
// each frame is copied from the traces (header order, trailing blank lines, no body newline).
import { decodeBytes } from './raw-text.js';

export const AUTH_REQUEST = 'Content-Type: auth/request\n\n';

export const DISCONNECT_NOTICE_BODY =
  'Disconnected, goodbye.\nSee you at ClueCon! http://www.cluecon.com/\n';

export function commandReply(text: string, extra: Record<string, string> = {}): string {
  let out = `Content-Type: command/reply\nReply-Text: ${text}\n`;
  for (const [k, v] of Object.entries(extra)) out += `${k}: ${v}\n`;
  return out + '\n';
}

export function apiResponse(body: string): string {
  return `Content-Type: api/response\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}`;
}

export function disconnectNotice(): string {
  const body = DISCONNECT_NOTICE_BODY;
  return `Content-Type: text/disconnect-notice\nContent-Length: ${Buffer.byteLength(body)}\n\n${body}`;
}

/** One command from a client: its first line, its headers and an optional body. */
export interface ClientCommand {
  readonly line: string;
  readonly headers: Map<string, string>;
  readonly body?: string;
}

/**
 * Incremental parser: commands end with a blank line; a `Content-Length` header announces a body
 * (sendmsg may carry one). Header names are matched case-insensitively, as FreeSWITCH does.
 */
export class CommandParser {
  private buffer = Buffer.alloc(0);

  push(chunk: Buffer): ClientCommand[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const out: ClientCommand[] = [];
    for (;;) {
      const cmd = this.next();
      if (!cmd) return out;
      out.push(cmd);
    }
  }

  private next(): ClientCommand | undefined {
    const text = this.buffer.toString('latin1');
    const lf = text.indexOf('\n\n');
    const crlf = text.indexOf('\r\n\r\n');
    let end: number;
    let sepLen: number;
    if (crlf !== -1 && (lf === -1 || crlf < lf)) {
      end = crlf;
      sepLen = 4;
    } else if (lf !== -1) {
      end = lf;
      sepLen = 2;
    } else {
      return undefined;
    }
    // A command line's bytes that are not UTF-8 go on as they came (raw-text.ts).
    const head = decodeBytes(this.buffer.subarray(0, end));
    const lines = head.split(/\r?\n/).filter((l, i) => i === 0 || l.length > 0);
    const headers = new Map<string, string>();
    for (const l of lines.slice(1)) {
      const idx = l.indexOf(':');
      if (idx <= 0) continue;
      headers.set(l.slice(0, idx).trim().toLowerCase(), l.slice(idx + 1).trim());
    }
    const len = Number(headers.get('content-length') ?? '0');
    const bodyStart = end + sepLen;
    if (len > 0) {
      if (this.buffer.length < bodyStart + len) return undefined;
      const body = this.buffer.subarray(bodyStart, bodyStart + len).toString('utf8');
      this.buffer = this.buffer.subarray(bodyStart + len);
      return { line: (lines[0] ?? '').trim(), headers, body };
    }
    this.buffer = this.buffer.subarray(bodyStart);
    return { line: (lines[0] ?? '').trim(), headers };
  }
}
