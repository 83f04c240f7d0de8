// mod_audio_stream's observable surface in one table: its API replies, event subclasses and
// bodies, and the libwsc error codes and texts behind `::error` (voxcom-us/mod_audio_stream at
// 7d9fe1d with libwsc v1.1.0). Behaviour is held to a real FreeSWITCH here, in one place.
import type { CallingSite } from '../core/event-factory.js';

export const STREAM_REPLY = {
  ok: '+OK Success\n',
  failed: '-ERR Operation Failed\n',
  usage:
    '-USAGE: <uuid> [start | stop | send_text | pause | resume | graceful-shutdown ] [wss-url | path] [mono | mixed | stereo] [8000 | 16000] [metadata]\n',
  /**
   * An unknown mix type, send_text without text, or invalid UTF-8 write nothing (a `goto done`
   * past the reply); the event socket then answers `-ERR no reply`.
   */
  none: '',
} as const;

/** Arguments after the uuid, at most (the sixth, the metadata, takes the rest of the line). */
export const MAX_ARGS = 6;
/** The bug is named `audio_stream`: one stream per channel, a stream-mode recording included. */
export const BUG_NAME = 'audio_stream';
/** The headers of its MEDIA_BUG_START/STOP (a bug added without a target). */
export const BUG_HEADERS: ReadonlyArray<readonly [string, string]> = [
  ['Media-Bug-Function', BUG_NAME],
  ['Media-Bug-Target', 'N/A'],
];
/** voxcom's start answers the channel (amigniter's only pre-answers it). */
export const START_ANSWERS_CALL = true;
export const METADATA_MAX_CHARS = 8191;

export type StreamEvent = 'connect' | 'disconnect' | 'error' | 'json' | 'play';

export const subclassOf = (kind: StreamEvent): string => `mod_audio_stream::${kind}`;

/** responseHandler's switch_event_create_subclass. */
export const EVENT_SITE: CallingSite = ['mod_audio_stream.c', 'responseHandler', 17];

export const connectedBody = (): string => JSON.stringify({ status: 'connected' });

export const errorBody = (failure: StreamFailure): string =>
  JSON.stringify({ status: 'error', message: { code: failure.code, error: failure.error } });

export const disconnectedBody = (code: number, reason: string): string =>
  JSON.stringify({ status: 'disconnected', message: { code, reason } });

/** libwsc's ErrorCode values. */
export const WSC_ERROR = {
  IO: 1,
  CONNECT_FAILED: 6,
  TIMEOUT: 10,
  PROTOCOL: 11,
} as const;

export interface StreamFailure {
  readonly code: number;
  readonly error: string;
}

/** libwsc's connection_timeout default (WebSocketClient.h; its OPTIONS.md says 2 s). */
export const CONNECT_TIMEOUT_MS = 1000;

export const FAILURE = {
  /** The server answered the upgrade with something other than 101. */
  upgrade: { code: WSC_ERROR.CONNECT_FAILED, error: 'WebSocket upgrade failed' },
  /** TCP closed before the upgrade completed. */
  handshakeEof: {
    code: WSC_ERROR.CONNECT_FAILED,
    error: 'Connection closed during handshake (EOF)',
  },
  /** No upgrade within CONNECT_TIMEOUT_MS. */
  timeout: { code: WSC_ERROR.TIMEOUT, error: 'Timeout' },
  /** The host did not resolve, or a port that is not one. */
  badTarget: { code: WSC_ERROR.CONNECT_FAILED, error: 'Invalid host or port' },
  /** The server dropped TCP without a CLOSE frame once open: an error, not a disconnect. */
  abnormal: {
    code: WSC_ERROR.IO,
    error: 'Connection closed without WebSocket CLOSE (abnormal EOF)',
  },
} as const satisfies Record<string, StreamFailure>;

/** Linux errno texts libevent prints as "<strerror> (system error <n>)". */
const ERRNO: Record<string, readonly [number, string]> = {
  ECONNREFUSED: [111, 'Connection refused'],
  EHOSTUNREACH: [113, 'No route to host'],
  ENETUNREACH: [101, 'Network is unreachable'],
  ETIMEDOUT: [110, 'Connection timed out'],
};

/** A socket error before the upgrade (BEV_EVENT_ERROR while connecting: CONNECT_FAILED). */
export function socketFailure(code: string | undefined): StreamFailure {
  if (code === 'ECONNRESET') return FAILURE.handshakeEof;
  const known = code ? ERRNO[code] : undefined;
  return {
    code: WSC_ERROR.CONNECT_FAILED,
    error: known ? `${known[1]} (system error ${known[0]})` : 'Connection error',
  };
}

/** What libwsc makes of a frame from the server that its receiver rejects. */
export type FrameFault =
  /** A CLOSE it cannot read is a CLOSE 1002: `::disconnect`, and the bug stays. */
  | { readonly kind: 'closed'; readonly code: number; readonly reason: string }
  /** onRxProtocolError: `::error`, and the module closes the stream. */
  | { readonly kind: 'failed'; readonly failure: StreamFailure };

/** ws's receiver names a bad frame by its `code` and message; libwsc's, by these. */
export function frameFault(err: { readonly code?: string; readonly message: string }): FrameFault {
  const what = err.message.replace(/^Invalid WebSocket frame: /, '');
  if (err.code === 'WS_ERR_INVALID_CLOSE_CODE' || what === 'invalid payload length 1')
    return { kind: 'closed', code: 1002, reason: '' };
  const [close, why] = rejection(err.code, what);
  const error =
    close === 1007
      ? `WebSocket invalid UTF-8 (1007): ${why}`
      : `WebSocket protocol error (${close}): ${why}`;
  return { kind: 'failed', failure: { code: WSC_ERROR.PROTOCOL, error } };
}

/** libwsc's close code and reason for a frame it rejects (WebSocketReceiver::onData). */
function rejection(code: string | undefined, what: string): readonly [number, string] {
  switch (code) {
    case 'WS_ERR_UNEXPECTED_RSV_1':
    case 'WS_ERR_UNEXPECTED_RSV_2_3':
      return [1002, 'Unexpected RSV bits'];
    case 'WS_ERR_EXPECTED_FIN':
      return [1002, 'Control frame fragmented'];
    case 'WS_ERR_UNEXPECTED_MASK':
      return [1002, 'Masked frame from server'];
    case 'WS_ERR_INVALID_CONTROL_PAYLOAD_LENGTH':
      return [1002, 'Control frame payload too large'];
    case 'WS_ERR_INVALID_UTF8':
      return [1007, 'Invalid UTF-8 in text message'];
    case 'WS_ERR_INVALID_OPCODE':
      if (what === 'invalid opcode 0') return [1002, 'continuation frame without initial frame'];
      if (what === 'invalid opcode 1' || what === 'invalid opcode 2')
        return [1002, 'Received new data frame when expecting continuation frame'];
      return [1002, 'Unsupported opcode'];
    default:
      return [1002, what];
  }
}

/** The code of a CLOSE from the server as libwsc reads it: without one, 1000. */
export const closeCodeOf = (code: number): number => (code === 1005 ? 1000 : code);

/** The CLOSE frame libwsc sends on stop and hangup. */
export const NORMAL_CLOSE = { code: 1000, reason: 'Normal closure' } as const;
/** libwsc's send queue (MAX_QUEUE_SIZE): messages beyond it are dropped while it is stalled. */
export const SEND_QUEUE_LIMIT = 1024;

/** `sampleRate` values a raw streamAudio may carry. */
export const RAW_RATES: ReadonlySet<number> = new Set([8000, 16000, 24000, 32000, 48000, 64000]);
/** Other audioDataTypes: written to a temp file, announced with `::play`. */
export const FILE_TYPES: Readonly<Record<string, string>> = {
  wav: '.wav',
  mp3: '.mp3',
  ogg: '.ogg',
  pcmu: '.pcmu',
  pcma: '.pcma',
};
