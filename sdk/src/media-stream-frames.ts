// The frames of a media stream (docs/media-streams.md), as TypeScript types. voicegw speaks the
// frame protocols of Twilio Media Streams and Telnyx media streaming at once: every frame it sends
// carries both vendors' names wherever they differ, with the same values, and every numeric
// protocol value is a string, as both vendors send them.

/** Which audio a media frame carries: what the caller says, or what the call hears. */
export type StreamTrack = 'inbound' | 'outbound';

/** Why a stream ended, in its `stop` frame (the `reason` of `stream.stopped`). */
export type StreamStopReason = 'stopped' | 'hangup' | 'closed_by_app' | 'error';

/** The sequence number and stream id of every frame but `connected`, in both namings. */
export interface StreamFrameIds {
  /** One counter per stream over every frame but `connected`, from "1" (Twilio's name). */
  readonly sequenceNumber: string;
  /** The same counter (Telnyx's name). */
  readonly sequence_number: string;
  /** "MZ" + the 32 hex digits of the stream id (Twilio's form). */
  readonly streamSid: string;
  /** The stream id, a UUID: the `operation_id` of its `stream/start` (Telnyx's form). */
  readonly stream_id: string;
}

/** The first frame, when the socket opens. */
export interface StreamConnectedFrame {
  readonly event: 'connected';
  readonly protocol: 'Call';
  readonly version: string;
}

/** What `start` describes: the Twilio fields, the Telnyx fields, then voicegw's own. */
export interface StreamStart {
  readonly streamSid: string;
  /** "AC" + 32 hex digits of the SHA-256 of the app id. */
  readonly accountSid: string;
  /** "CA" + the 32 hex digits of the session's uuid part. */
  readonly callSid: string;
  /** `["inbound"]`, `["outbound"]` or `["inbound","outbound"]`, from stream/start's `track`. */
  readonly tracks: readonly StreamTrack[];
  readonly mediaFormat: {
    readonly encoding: 'audio/x-mulaw';
    readonly sampleRate: 8000;
    readonly channels: 1;
  };
  /** The `custom_parameters` of stream/start (`{}` without). */
  readonly customParameters: Readonly<Record<string, string>>;
  /** The voicegw session id. */
  readonly call_control_id: string;
  /** The voicegw session id. */
  readonly call_session_id: string;
  /** The app id. */
  readonly user_id: string;
  /** The caller id. */
  readonly from: string;
  /** The DID called, or the number dialled. */
  readonly to: string;
  readonly media_format: {
    readonly encoding: 'PCMU';
    readonly sample_rate: 8000;
    readonly channels: 1;
  };
  readonly custom_parameters: Readonly<Record<string, string>>;
  readonly session_uuid: string;
  readonly app_id: string;
  /** Whether the stream takes audio, marks and clear from the application. */
  readonly bidirectional: boolean;
}

/** 20 ms of one track: 160 bytes of μ-law 8 kHz, base64. */
export interface StreamMedia {
  readonly track: StreamTrack;
  /** Per track, from "1". */
  readonly chunk: string;
  /** Milliseconds of audio on this track since the stream started. */
  readonly timestamp: string;
  readonly payload: string;
}

export interface StreamStartFrame extends StreamFrameIds {
  readonly event: 'start';
  readonly start: StreamStart;
}

export interface StreamMediaFrame extends StreamFrameIds {
  readonly event: 'media';
  readonly media: StreamMedia;
}

/** A key the caller pressed. */
export interface StreamDtmfFrame extends StreamFrameIds {
  readonly event: 'dtmf';
  /** ISO 8601 (Telnyx). */
  readonly occurred_at: string;
  readonly dtmf: { readonly track: 'inbound_track'; readonly digit: string };
}

/** An application's mark coming back: the audio sent before it has played, or was cleared. */
export interface StreamMarkFrame extends StreamFrameIds {
  readonly event: 'mark';
  readonly mark: { readonly name: string };
}

/** The last frame: the stream was stopped, or the call ended. */
export interface StreamStopFrame extends StreamFrameIds {
  readonly event: 'stop';
  readonly stop: {
    readonly accountSid: string;
    readonly callSid: string;
    readonly user_id: string;
    readonly call_control_id: string;
    readonly reason: StreamStopReason;
  };
}

/** Every frame voicegw sends to the application, exactly. */
export type StreamFrameToApp =
  | StreamConnectedFrame
  | StreamStartFrame
  | StreamMediaFrame
  | StreamDtmfFrame
  | StreamMarkFrame
  | StreamStopFrame;

/** The stream id an application may put in its frames, in either naming; checked when present. */
export interface AppFrameIds {
  readonly streamSid?: string;
  readonly stream_id?: string;
}

/** Audio to play to the call: base64 μ-law 8 kHz, any length, played in order without gaps. */
export interface AppMediaFrame extends AppFrameIds {
  readonly event: 'media';
  readonly media: { readonly payload: string };
}

/** Asks for a `mark` frame back once the audio sent before it has played. */
export interface AppMarkFrame extends AppFrameIds {
  readonly event: 'mark';
  readonly mark: { readonly name: string };
}

/** Drops the audio not yet played; every pending mark comes back. */
export interface AppClearFrame extends AppFrameIds {
  readonly event: 'clear';
}

/** Every frame voicegw accepts from the application (bidirectional streams only). */
export type StreamFrameFromApp = AppMediaFrame | AppMarkFrame | AppClearFrame;

/**
 * The ids of a frame of either dialect: voicegw sends both namings, Twilio only its own
 * (`sequenceNumber`, `streamSid`), Telnyx only its own (`sequence_number`, `stream_id`).
 */
export type EitherFrameIds =
  | (Pick<StreamFrameIds, 'sequenceNumber' | 'streamSid'> &
      Partial<Pick<StreamFrameIds, 'sequence_number' | 'stream_id'>>)
  | (Pick<StreamFrameIds, 'sequence_number' | 'stream_id'> &
      Partial<Pick<StreamFrameIds, 'sequenceNumber' | 'streamSid'>>);

/**
 * A frame an application receives, as `parseStreamFrame` returns it: a union discriminated by
 * `event`, in either dialect. A voicegw frame has every field of `StreamFrameToApp`; one from
 * Twilio or Telnyx only its vendor's, so the fields one vendor lacks are optional here.
 */
export type StreamFrame =
  | { readonly event: 'connected'; readonly version: string; readonly protocol?: string }
  | (EitherFrameIds & { readonly event: 'start'; readonly start: Partial<StreamStart> })
  | (EitherFrameIds & { readonly event: 'media'; readonly media: StreamMedia })
  | (EitherFrameIds & {
      readonly event: 'dtmf';
      readonly occurred_at?: string;
      readonly dtmf: { readonly digit: string; readonly track?: string };
    })
  | (EitherFrameIds & { readonly event: 'mark'; readonly mark: { readonly name: string } })
  | (EitherFrameIds & { readonly event: 'stop'; readonly stop: Partial<StreamStopFrame['stop']> });
