// For an application's WebSocket server receiving voicegw media streams: parse the frames it
// receives, build the ones it sends, verify the upgrade request. No WebSocket library here: the
// application brings its own server. The frames are typed in media-stream-frames.ts.
import { Webhook } from 'standardwebhooks';
import type { StreamFrame } from './media-stream-frames.js';
import { headerValue, WebhookVerificationError, type WebhookHeaders } from './webhooks.js';

export type StreamFrameErrorReason = 'not_json' | 'not_an_object' | 'unknown_event' | 'bad_field';

/** A text that is not a media-stream frame: why, and the field at fault for `bad_field`. */
export class StreamFrameError extends Error {
  override readonly name = 'StreamFrameError';
  constructor(
    readonly reason: StreamFrameErrorReason,
    message: string,
    /** Dotted path of the missing or mistyped field, e.g. `media.payload`. */
    readonly field?: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function object(frame: Json, field: string): Json {
  const value = frame[field];
  if (!isObject(value)) throw new StreamFrameError('bad_field', `${field} is not an object`, field);
  return value;
}

function string(parent: Json, field: string, path = field): string {
  const value = parent[field];
  if (typeof value !== 'string')
    throw new StreamFrameError('bad_field', `${path} is not a string`, path);
  return value;
}

/** At least one naming of a pair, each a string when present. */
function eitherName(frame: Json, twilio: string, telnyx: string): void {
  if (frame[twilio] === undefined && frame[telnyx] === undefined)
    throw new StreamFrameError('bad_field', `${twilio} or ${telnyx} is missing`, twilio);
  if (frame[twilio] !== undefined) string(frame, twilio);
  if (frame[telnyx] !== undefined) string(frame, telnyx);
}

/**
 * Parses one text frame received from a media stream: voicegw's (both namings), or one of
 * Twilio's or Telnyx's own. Throws StreamFrameError when the text is not JSON, not an object,
 * has an event this protocol does not send, or lacks a field the event needs (the ids, and
 * `media.track/chunk/timestamp/payload`, `mark.name`, `dtmf.digit`, the `start`/`stop` objects).
 * Fields beyond those are passed through unchecked.
 */
export function parseStreamFrame(text: string | Uint8Array): StreamFrame {
  let frame: unknown;
  try {
    frame = JSON.parse(typeof text === 'string' ? text : new TextDecoder().decode(text));
  } catch {
    throw new StreamFrameError('not_json', 'Frame is not JSON');
  }
  if (!isObject(frame)) throw new StreamFrameError('not_an_object', 'Frame is not a JSON object');
  const event = frame.event;
  if (event === 'connected') {
    string(frame, 'version');
    if (frame.protocol !== undefined) string(frame, 'protocol');
    return frame as StreamFrame;
  }
  if (
    event !== 'start' &&
    event !== 'media' &&
    event !== 'dtmf' &&
    event !== 'mark' &&
    event !== 'stop'
  )
    throw new StreamFrameError('unknown_event', `Unknown event ${JSON.stringify(event)}`);
  eitherName(frame, 'sequenceNumber', 'sequence_number');
  eitherName(frame, 'streamSid', 'stream_id');
  const body = object(frame, event);
  if (event === 'media') {
    for (const field of ['chunk', 'timestamp', 'payload']) string(body, field, `media.${field}`);
    const track = string(body, 'track', 'media.track');
    if (track !== 'inbound' && track !== 'outbound')
      throw new StreamFrameError('bad_field', `media.track ${track} is unknown`, 'media.track');
  } else if (event === 'mark') string(body, 'name', 'mark.name');
  else if (event === 'dtmf') string(body, 'digit', 'dtmf.digit');
  return frame as StreamFrame;
}

/**
 * Audio for the call (Twilio's form, which voicegw accepts): base64 μ-law 8 kHz of any length.
 * Without a streamSid the frame is Telnyx's form, `{"event":"media","media":{…}}`.
 */
export function mediaFrame(streamSid: string | undefined, payloadBase64: string): string {
  return JSON.stringify({ event: 'media', streamSid, media: { payload: payloadBase64 } });
}

/** A mark: comes back as a `mark` frame once the audio sent before it has played. */
export function markFrame(streamSid: string | undefined, name: string): string {
  return JSON.stringify({ event: 'mark', streamSid, mark: { name } });
}

/** Drops the audio not yet played; every pending mark comes back. */
export function clearFrame(streamSid: string | undefined): string {
  return JSON.stringify({ event: 'clear', streamSid });
}

export interface StreamUpgradeRequest {
  /** The upgrade request's headers (node:http's `req.headers`, or a fetch `Headers`). */
  readonly headers: WebhookHeaders;
  /** Exactly the `url` given to `stream/start`, which the signature covers. */
  readonly url: string;
  /** The app's `webhook_secret`. */
  readonly secret: string;
  /** How far the signing time may be from now; 300 (5 minutes) by default, as for webhooks. */
  readonly toleranceSeconds?: number;
}

export interface VerifiedStreamUpgrade {
  /** The stream id (`webhook-id`): the `operation_id` of its `stream/start`. */
  readonly streamId: string;
  /** When the gateway signed the request. */
  readonly signedAt: Date;
}

/**
 * Verifies that a WebSocket upgrade request comes from the gateway for this app: the Standard
 * Webhooks signature (`webhook-signature`, HMAC-SHA256 with the app's webhook_secret) over
 * `<webhook-id>.<webhook-timestamp>.<url>`, and a timestamp within the tolerance. Throws
 * WebhookVerificationError otherwise; refuse the upgrade then (HTTP 401 or 403).
 */
export function verifyStreamUpgrade(request: StreamUpgradeRequest): VerifiedStreamUpgrade {
  const { headers, url, secret, toleranceSeconds = 300 } = request;
  const id = headerValue(headers, 'webhook-id');
  const timestamp = headerValue(headers, 'webhook-timestamp');
  const signatures = headerValue(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined)
    throw new WebhookVerificationError(
      'Missing webhook-id, webhook-timestamp or webhook-signature',
    );
  if (!/^\d{1,12}$/.test(timestamp))
    throw new WebhookVerificationError('Invalid webhook-timestamp header');
  const seconds = Number(timestamp);
  if (Math.abs(Date.now() / 1000 - seconds) > toleranceSeconds)
    throw new WebhookVerificationError('Upgrade request timestamp outside the tolerance');
  const signedAt = new Date(seconds * 1000);
  // standardwebhooks signs `${id}.${seconds}.${payload}`: with the url as the payload, the
  // string this protocol signs.
  let expected: string;
  try {
    expected = new Webhook(secret).sign(id, signedAt, url);
  } catch (cause) {
    throw new WebhookVerificationError('Invalid secret', { cause });
  }
  for (const candidate of signatures.split(' '))
    if (sameText(candidate, expected)) return { streamId: id, signedAt };
  throw new WebhookVerificationError('No matching signature found');
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}
