import { Type, type Static } from 'typebox';

// What the room functions return, as schemas: the conference routes answer with them (and the
// OpenAPI document describes them), the domain's types derive from them.

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
