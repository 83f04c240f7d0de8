import { AudioUrls } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

// Request and response schemas of the conference routes; the domain's types derive from them.

export const ROOM_NAME_PATTERN = '^[a-zA-Z0-9][a-zA-Z0-9_-]*$';

export const LIST_LIMIT = { default: 50, max: 200 } as const;
export const MEMBERS_LIMIT = { default: 50, max: 1000 } as const;

export const RoomParams = Type.Object({
  room_id: Type.String({ description: 'Room identifier `{prefix}-room-{uuid}`' }),
});

/**
 * `limit` below 1 or not an integer is 400; above the maximum it is clamped, up to the largest
 * integer a number holds exactly (beyond, 1e400 say, it is no integer: 400).
 */
export const PageQuery = (limit: { readonly default: number; readonly max: number }) =>
  Type.Object({
    limit: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      default: limit.default,
      description: `Page size, default ${limit.default}; larger values are clamped to ${limit.max}.`,
    }),
    cursor: Type.Optional(
      Type.String({ description: 'The `cursor` of the previous page, passed back unchanged.' }),
    ),
  });
export type PageQueryArgs = Static<ReturnType<typeof PageQuery>>;

export const CreateBody = Type.Object(
  { name: Type.String({ pattern: ROOM_NAME_PATTERN, maxLength: 64 }) },
  { additionalProperties: false },
);
export const PlayBody = Type.Object({ urls: AudioUrls }, { additionalProperties: false });
export const VolumeBody = Type.Object(
  {
    volume: Type.Integer({
      minimum: -50,
      maximum: 7,
      description: 'Negative attenuates, positive amplifies.',
    }),
  },
  { additionalProperties: false },
);

export const RoomCreated = Type.Object({ room_id: Type.String() });
export const RoomDeleted = Type.Object({ room_id: Type.String() });

export const RoomSummary = Type.Object({
  room_id: Type.String(),
  name: Type.String(),
  members: Type.Integer({ minimum: 0 }),
  created_at: Type.String({ format: 'date-time' }),
});
export type RoomSummary = Static<typeof RoomSummary>;

export const RoomList = Type.Object({
  conferences: Type.Array(RoomSummary),
  cursor: Type.String({ description: 'Empty on the last page.' }),
});
export type RoomList = Static<typeof RoomList>;

export const PlaybackStatus = Type.Union([
  Type.Literal('stopped'),
  Type.Literal('playing'),
  Type.Literal('paused'),
]);
export type PlaybackStatus = Static<typeof PlaybackStatus>;

export const RoomStatus = Type.Object({
  room_id: Type.String(),
  name: Type.String(),
  created_at: Type.String({ description: 'Epoch seconds, as a string.' }),
  members: Type.Integer({ minimum: 0 }),
  playback_status: PlaybackStatus,
  playback_volume: Type.Integer(),
  playback_urls: Type.Array(Type.String()),
  playback_operation_id: Type.String(),
});
export type RoomStatus = Static<typeof RoomStatus>;

export const Member = Type.Object({
  uuid: Type.String({ description: 'Session identifier' }),
  did: Type.String(),
  caller_id: Type.String(),
  muted: Type.Boolean(),
});
export const MemberList = Type.Object({
  room_id: Type.String(),
  members: Type.Array(Member),
  cursor: Type.String({ description: 'Empty on the last page.' }),
});
export type MemberList = Static<typeof MemberList>;

export const ControlAccepted = Type.Object({
  operation_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('in_progress'),
});
export type ControlAccepted = Static<typeof ControlAccepted>;

export const ErrorBody = Type.Object({ success: Type.Literal(false), error: Type.String() });
export const NameTaken = Type.Object({
  success: Type.Literal(false),
  error: Type.String(),
  detail: Type.Object({ room_id: Type.String() }),
});

/** OpenAPI and serialization settings every conference route shares. */
export const common = {
  tags: ['conferences'],
  security: [{ appId: [], apiKey: [] }],
} as const;
export const errors = { '4xx': ErrorBody, '5xx': ErrorBody } as const;
