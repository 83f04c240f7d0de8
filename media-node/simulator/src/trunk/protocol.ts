// The wire format of the simulators' SIP trunk: one TCP connection per call (the connection is
// the SIP dialog) carrying one JSON object per line. The messages are the SIP requests and
// responses two real FreeSWITCHes exchange for a call (trace i): INVITE, 180/183/200 or a final
// failure, CANCEL, BYE, RFC 2833 DTMF and the call's audio (RTP, trunk/rtp.ts). Hangup causes travel as FreeSWITCH puts them in the
// Reason header (`Q.850;cause=17;text="USER_BUSY"`), so the far side hangs up with the same one.
import type { Socket } from 'node:net';
import type { RtpFrame } from './rtp.js';

export type TrunkMessage =
  | {
      readonly m: 'INVITE';
      readonly call_id: string;
      /** Request-URI user part: the far side's Caller-Destination-Number. */
      readonly to: string;
      readonly from: string;
      readonly from_name: string;
      /** X- headers, from the caller's `sip_h_X-*` variables. */
      readonly headers: Readonly<Record<string, string>>;
    }
  /** 180 Ringing, 183 Session Progress, 200 OK, or a final failure with its cause. */
  | { readonly m: 'RESPONSE'; readonly code: number; readonly cause?: string }
  | { readonly m: 'CANCEL'; readonly cause: string }
  | { readonly m: 'BYE'; readonly cause: string }
  | { readonly m: 'DTMF'; readonly digit: string; readonly samples: number }
  /** One 20 ms frame of audio toward the far leg (silent frames are not sent). */
  | ({ readonly m: 'RTP' } & RtpFrame);

/** The SIP status a refusal with this cause goes out as (the inverse of mod_sofia's map). */
const CAUSE_STATUS: Readonly<Record<string, number>> = {
  UNALLOCATED_NUMBER: 404,
  NO_ROUTE_DESTINATION: 404,
  USER_BUSY: 486,
  NO_USER_RESPONSE: 408,
  NO_ANSWER: 480,
  SUBSCRIBER_ABSENT: 480,
  CALL_REJECTED: 603,
  ORIGINATOR_CANCEL: 487,
  NORMAL_TEMPORARY_FAILURE: 503,
  SWITCH_CONGESTION: 503,
  INCOMPATIBLE_DESTINATION: 488,
};

export function statusOf(cause: string): number {
  return CAUSE_STATUS[cause] ?? 480;
}

/** Writes messages to a socket and hands the ones read from it, whole, to `onMessage`. */
export class TrunkWire {
  private buffered = '';

  constructor(
    private readonly socket: Socket,
    onMessage: (message: TrunkMessage) => void,
  ) {
    socket.setNoDelay(true);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.buffered += chunk;
      let newline: number;
      while ((newline = this.buffered.indexOf('\n')) !== -1) {
        const line = this.buffered.slice(0, newline);
        this.buffered = this.buffered.slice(newline + 1);
        const message = parse(line);
        if (message) onMessage(message);
      }
    });
  }

  get open(): boolean {
    return this.socket.writable && !this.socket.destroyed;
  }

  send(message: TrunkMessage): void {
    if (this.open) this.socket.write(`${JSON.stringify(message)}\n`);
  }

  /** Ends the dialog: the last message goes out, then the connection closes. */
  end(message?: TrunkMessage): void {
    if (message) this.send(message);
    if (this.open) this.socket.end();
  }
}

function parse(line: string): TrunkMessage | undefined {
  try {
    const value = JSON.parse(line) as TrunkMessage;
    return value && typeof value.m === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
