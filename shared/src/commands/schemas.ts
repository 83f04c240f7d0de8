import { Type, type Static, type TObject, type TProperties } from 'typebox';
import { SESSION_ID_PATTERN } from '../ids.js';

// Body schemas of the 22 session commands and of dial. They live in shared/ because the api
// validates them and the media node executes their arguments: one definition, types derived.

export const URL_PATTERN = '^https?://[^\\s]+$';
export const MAX_URLS = 128;
export const MAX_URL_LENGTH = 2048;
/** A seek moves at most a day either way (offset_sec's range): larger is no position at all. */
export const MAX_SEEK_MS = 86_400_000;
export const COMMAND_UID_PATTERN = '^[a-zA-Z0-9._-]+$';

export const AudioUrl = Type.String({ pattern: URL_PATTERN, maxLength: MAX_URL_LENGTH });

/** A media stream's WebSocket URL; ws:// only where http:// webhooks are allowed (checked apart). */
export const STREAM_URL_PATTERN = '^wss?://[^\\s]+$';
/** Which audio a media stream carries: the caller's, what the call hears, or both. */
export const STREAM_TRACKS = ['inbound', 'outbound', 'both'] as const;
export type StreamTrack = (typeof STREAM_TRACKS)[number];
export const MAX_CUSTOM_PARAMETERS = 16;
export const MAX_CUSTOM_PARAMETER_LENGTH = 256;
export const CUSTOM_PARAMETER_NAME_PATTERN = '^[A-Za-z0-9_.-]{1,64}$';
export const AudioUrls = Type.Array(AudioUrl, { minItems: 1, maxItems: MAX_URLS });

/** Israeli domestic numbers: landline 02/03/04/08/09 + 7, mobile 050–055/058 + 7, VoIP 07x + 7. */
export const ISRAELI_NUMBER_PATTERN = '^(?:0[23489][0-9]{7}|05[0-58][0-9]{7}|07[234679][0-9]{7})$';

/** How long an outbound call rings (dial's and transfer's `timeout_sec`), in seconds. */
export const RING_TIMEOUT_SEC = { minimum: 1, maximum: 300, default: 30 } as const;

/** What an outbound call takes: dial's body, and transfer's (which adds the envelope). */
const dialProps = {
  to: Type.String({ pattern: ISRAELI_NUMBER_PATTERN }),
  from: Type.String({ pattern: ISRAELI_NUMBER_PATTERN }),
  timeout_sec: Type.Integer(RING_TIMEOUT_SEC),
  max_duration_sec: Type.Integer({ minimum: 1, maximum: 14_400, default: 3600 }),
};

const envelope = {
  command_uid: Type.Optional(
    Type.String({ minLength: 1, maxLength: 128, pattern: COMMAND_UID_PATTERN }),
  ),
};
const body = <P extends TProperties>(props: P) =>
  Type.Object({ ...envelope, ...props }, { additionalProperties: false });

export const SessionCommandBodies = {
  answer: body({}),
  hangup: body({
    cause: Type.String({ maxLength: 64, pattern: '^[A-Z_]+$', default: 'NORMAL_CLEARING' }),
  }),
  disconnect: body({}),
  'playback/start': body({
    urls: AudioUrls,
    offset_sec: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400 })),
  }),
  'playback/stop': body({}),
  'playback/pause': body({}),
  'playback/resume': body({}),
  'playback/seek': body({
    position_ms: Type.Integer({ minimum: -MAX_SEEK_MS, maximum: MAX_SEEK_MS, not: { const: 0 } }),
  }),
  'playback/restart': body({}),
  'playback/silence': body({}),
  play_and_get_digits: body({
    prompt_files: AudioUrls,
    invalid_files: Type.Optional(Type.Array(AudioUrl, { maxItems: MAX_URLS })),
    min_digits: Type.Integer({ minimum: 0, maximum: 128, default: 1 }),
    max_digits: Type.Integer({ minimum: 1, maximum: 128, default: 10 }),
    max_tries: Type.Integer({ minimum: 1, maximum: 10, default: 3 }),
    timeout: Type.Integer({ minimum: 1000, maximum: 300_000, default: 5000 }),
    terminators: Type.String({ maxLength: 16, pattern: '^[#*]*$', default: '#' }),
  }),
  'record/start': body({}),
  'record/stop': body({}),
  'conference/join': body({
    room_id: Type.String({
      pattern: '^[a-z0-9]{5}-room-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    }),
  }),
  'conference/leave': body({}),
  'conference/mute': body({}),
  'conference/unmute': body({}),
  'stream/start': body({
    url: Type.String({
      pattern: STREAM_URL_PATTERN,
      maxLength: MAX_URL_LENGTH,
      description:
        "The application's WebSocket server, which the media node connects to: wss://, or " +
        'ws:// where ALLOW_HTTP_WEBHOOKS allows http://; the webhook_url address rules apply.',
    }),
    track: Type.Enum(STREAM_TRACKS, {
      default: 'inbound',
      description: 'The audio streamed: what the caller says, what the call hears, or both.',
    }),
    bidirectional: Type.Boolean({
      default: false,
      description: 'Whether audio the application sends back is played into the call.',
    }),
    custom_parameters: Type.Optional(
      // The key rule as propertyNames, not a key pattern: a pattern key only constrains the keys
      // that match it, and lets any other key through unchecked.
      Type.Record(Type.String(), Type.String({ maxLength: MAX_CUSTOM_PARAMETER_LENGTH }), {
        propertyNames: { pattern: CUSTOM_PARAMETER_NAME_PATTERN },
        maxProperties: MAX_CUSTOM_PARAMETERS,
        description: "Echoed in the stream's `start` frame.",
      }),
    ),
  }),
  'stream/stop': body({}),
  bridge: body({
    session_uuid: Type.String({
      pattern: SESSION_ID_PATTERN,
      description: 'The other session: of the same app, answered, in no room and in no bridge.',
    }),
  }),
  unbridge: body({}),
  transfer: Type.Object(
    {
      ...envelope,
      ...dialProps,
      metadata: Type.Optional(
        Type.Record(Type.String(), Type.Unknown(), {
          description: "The new leg's session metadata, as dial's.",
        }),
      ),
    },
    { additionalProperties: false },
  ),
} satisfies Record<string, TObject>;

export type SessionCommandName = keyof typeof SessionCommandBodies;
export type SessionCommandArgs<C extends SessionCommandName = SessionCommandName> = Static<
  (typeof SessionCommandBodies)[C]
>;

export const SESSION_COMMAND_NAMES = Object.keys(SessionCommandBodies) as SessionCommandName[];

export function isSessionCommandName(name: string): name is SessionCommandName {
  return Object.hasOwn(SessionCommandBodies, name);
}

/** The room each command that names one reads it from (conference/join). */
const ROOM_ARG: { readonly [C in SessionCommandName]?: (args: SessionCommandArgs<C>) => string } = {
  'conference/join': (args) => args.room_id,
};

/** The room a command's arguments name, or '' for a command that names none. */
export function commandRoomId<C extends SessionCommandName>(
  command: C,
  args: SessionCommandArgs<C>,
): string {
  return ROOM_ARG[command]?.(args) ?? '';
}

/**
 * The `command` field of command.result: `playback/start` → `playback.start`, `answer` →
 * `call.answer`, `bridge` → `call.bridge`.
 */
export function resultCommandName(command: SessionCommandName): string {
  if (!command.includes('/') && command !== 'play_and_get_digits') return `call.${command}`;
  return command.replace('/', '.');
}

export const DialBody = Type.Object(
  { ...dialProps, metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())) },
  { additionalProperties: false },
);
export type DialArgs = Static<typeof DialBody>;
