import { createHash } from 'node:crypto';
import type { StreamStopReason } from '@voicegw/shared';

// The application's side of a media stream: JSON text frames in the dialects of Twilio Media
// Streams and Telnyx media streaming at once (each field under both names where they differ,
// every numeric protocol value a string, as both vendors send), and the frames it may send back
// in either.

/** A track of the call's audio: what the caller says, what the call hears. */
export type MediaTrack = 'inbound' | 'outbound';

/** A stream's ids in both dialects, fixed for its life. */
export interface StreamIdentity {
  /** The voicegw stream id, a UUID: the operation_id of its stream/start (Telnyx `stream_id`). */
  readonly streamId: string;
  /** Twilio's `streamSid`: "MZ" and the stream id's 32 hex digits. */
  readonly streamSid: string;
  /** "CA" and the 32 hex digits of the session's channel uuid. */
  readonly callSid: string;
  /** "AC" and 32 hex digits of the app id's SHA-256. */
  readonly accountSid: string;
  readonly appId: string;
  /** The voicegw session id (Telnyx `call_control_id`). */
  readonly sessionId: string;
  /** `"streamSid":"…","stream_id":"…"`, as every frame but `connected` carries it. */
  readonly idFields: string;
}

const hex32 = (uuid: string): string => uuid.replace(/-/g, '').toLowerCase();

export function streamIdentity(
  streamId: string,
  sessionId: string,
  channelUuid: string,
  appId: string,
): StreamIdentity {
  const streamSid = `MZ${hex32(streamId)}`;
  return {
    streamId,
    streamSid,
    callSid: `CA${hex32(channelUuid)}`,
    accountSid: `AC${createHash('sha256').update(appId).digest('hex').slice(0, 32)}`,
    appId,
    sessionId,
    idFields: `"streamSid":${JSON.stringify(streamSid)},"stream_id":${JSON.stringify(streamId)}`,
  };
}

/** What the `start` frame tells of the stream beyond its ids. */
export interface StartDetails {
  readonly tracks: readonly MediaTrack[];
  readonly customParameters: Readonly<Record<string, string>>;
  readonly from: string;
  readonly to: string;
  readonly bidirectional: boolean;
}

export const connectedFrame = (): string =>
  '{"event":"connected","protocol":"Call","version":"1.0.0"}';

/** The fields every frame after `connected` begins with. */
const head = (id: StreamIdentity, event: string, seq: number): string =>
  `{"event":"${event}","sequenceNumber":"${seq}","sequence_number":"${seq}",${id.idFields}`;

export function startFrame(id: StreamIdentity, seq: number, details: StartDetails): string {
  const start = {
    streamSid: id.streamSid,
    accountSid: id.accountSid,
    callSid: id.callSid,
    tracks: details.tracks,
    mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
    customParameters: details.customParameters,
    call_control_id: id.sessionId,
    call_session_id: id.sessionId,
    user_id: id.appId,
    from: details.from,
    to: details.to,
    media_format: { encoding: 'PCMU', sample_rate: 8000, channels: 1 },
    custom_parameters: details.customParameters,
    session_uuid: id.sessionId,
    app_id: id.appId,
    bidirectional: details.bidirectional,
  };
  return `${head(id, 'start', seq)},"start":${JSON.stringify(start)}}`;
}

/** One 20 ms media frame; `payload` is base64 (no character JSON escapes), built by hand. */
export const mediaFrame = (
  id: StreamIdentity,
  seq: number,
  track: MediaTrack,
  chunk: number,
  timestampMs: number,
  payload: string,
): string =>
  `${head(id, 'media', seq)},"media":{"track":"${track}","chunk":"${chunk}",` +
  `"timestamp":"${timestampMs}","payload":"${payload}"}}`;

export const dtmfFrame = (id: StreamIdentity, seq: number, digit: string, at: Date): string =>
  `${head(id, 'dtmf', seq)},"occurred_at":"${at.toISOString()}",` +
  `"dtmf":${JSON.stringify({ track: 'inbound_track', digit })}}`;

export const markFrame = (id: StreamIdentity, seq: number, name: string): string =>
  `${head(id, 'mark', seq)},"mark":${JSON.stringify({ name })}}`;

export function stopFrame(id: StreamIdentity, seq: number, reason: StreamStopReason): string {
  const stop = {
    accountSid: id.accountSid,
    callSid: id.callSid,
    user_id: id.appId,
    call_control_id: id.sessionId,
    reason,
  };
  return `${head(id, 'stop', seq)},"stop":${JSON.stringify(stop)}}`;
}

/** Largest text frame read from the application. */
export const MAX_TEXT_BYTES = 256 * 1024;
/** Largest audio payload of one media frame from the application, decoded. */
export const MAX_PAYLOAD_BYTES = 64 * 1024;

/** Why a frame from the application was ignored (the malformed-frames metric's label). */
export const MALFORMED_REASONS = [
  'binary',
  'text_too_large',
  'not_json',
  'not_object',
  'unknown_event',
  'wrong_stream',
  'bad_media',
  'bad_base64',
  'payload_too_large',
  'bad_mark',
] as const;
export type MalformedReason = (typeof MALFORMED_REASONS)[number];

/** A frame from the application, understood. */
export type AppFrame =
  | { readonly kind: 'media'; readonly payload: Buffer }
  | { readonly kind: 'mark'; readonly name: string }
  | { readonly kind: 'clear' }
  | { readonly kind: 'malformed'; readonly reason: MalformedReason };

const malformed = (reason: MalformedReason): AppFrame => ({ kind: 'malformed', reason });

/** Standard base64 with its padding, as both vendors' examples and Pipecat send it. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * One text frame from the application, in either dialect. A stream id given under either name
 * must be this stream's; one left out is fine.
 */
export function parseAppFrame(text: string, id: StreamIdentity): AppFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return malformed('not_json');
  }
  if (typeof frame !== 'object' || frame === null || Array.isArray(frame)) {
    return malformed('not_object');
  }
  const f = frame as Record<string, unknown>;
  if (
    (f.streamSid !== undefined && f.streamSid !== id.streamSid) ||
    (f.stream_id !== undefined && f.stream_id !== id.streamId)
  ) {
    return malformed('wrong_stream');
  }
  switch (f.event) {
    case 'media':
      return media(f.media);
    case 'mark': {
      const name = field(f.mark, 'name');
      return typeof name === 'string' ? { kind: 'mark', name } : malformed('bad_mark');
    }
    case 'clear':
      return { kind: 'clear' };
    default:
      return malformed('unknown_event');
  }
}

function media(body: unknown): AppFrame {
  const payload = field(body, 'payload');
  if (typeof payload !== 'string') return malformed('bad_media');
  if (payload.length % 4 !== 0 || !BASE64.test(payload)) return malformed('bad_base64');
  if ((payload.length / 4) * 3 > MAX_PAYLOAD_BYTES + 2) return malformed('payload_too_large');
  const audio = Buffer.from(payload, 'base64');
  if (audio.length > MAX_PAYLOAD_BYTES) return malformed('payload_too_large');
  return { kind: 'media', payload: audio };
}

const field = (value: unknown, name: string): unknown =>
  typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[name]
    : undefined;
