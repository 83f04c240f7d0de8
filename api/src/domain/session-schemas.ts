import { BRIDGE_STATES, HANGUP_CAUSES } from '@voicegw/shared';
import { Type, type Static } from 'typebox';
import { PageQuery } from './page-query.js';

// Schemas of the session reads (GET /sessions, GET /sessions/{uuid}): the routes validate and
// answer with them, the domain's types derive from them, and the SDK's types from the OpenAPI
// document they produce.

export const SESSIONS_LIMIT = { default: 20, max: 100 } as const;

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);
const Time = Type.String({ format: 'date-time' });

export const SessionStatus = Type.Enum(['ringing', 'early_media', 'answered', 'ended'] as const, {
  description: 'An outbound call still being placed (dial status `dialing`) is `ringing`.',
});
export type SessionStatus = Static<typeof SessionStatus>;

const common = {
  session_uuid: Type.String({ description: 'Session identifier `<prefix>-<uuid>`' }),
  caller_id: Type.String({ description: 'Inbound: the caller; outbound: the dial `from`' }),
  status: SessionStatus,
  created_at: Time,
  answered_at: nullable(Time),
  ended_at: nullable(Time),
  hangup_cause: nullable(Type.Enum(HANGUP_CAUSES)),
  duration_seconds: nullable(
    Type.Integer({ minimum: 0, description: 'As in `call.hangup`; null until the call ends' }),
  ),
  room_id: nullable(Type.String({ description: 'The conference room the session is in' })),
  recording_ids: Type.Array(Type.String(), { description: 'Recordings started, oldest first' }),
  bridge: nullable(
    Type.Object(
      {
        peer_session_uuid: Type.String({
          description: 'The other party: the bridged session, or during a transfer its new leg',
        }),
        state: Type.Enum(BRIDGE_STATES, {
          description:
            '`bridging`: accepted, not yet connected; `bridged`: connected (`call.bridged`); ' +
            '`unbridging`: an unbridge accepted; `transferring`: a transfer ringing (its ' +
            'caller and its new leg)',
        }),
      },
      { description: 'The bridge or transfer the session is in; null when in none' },
    ),
  ),
  parent_session_uuid: nullable(
    Type.String({ description: 'On a transfer’s new leg: the session that transferred' }),
  ),
};

export const InboundSession = Type.Object({
  ...common,
  direction: Type.Literal('inbound'),
  did: Type.String({ description: 'The called number' }),
});
export const OutboundSession = Type.Object({
  ...common,
  direction: Type.Literal('outbound'),
  to: Type.String(),
  from: Type.String(),
  metadata: Type.Record(Type.String(), Type.Unknown(), { description: 'The dial `metadata`' }),
});
export const Session = Type.Union([InboundSession, OutboundSession], {
  description: 'A session of the calling app: active, or ended within SESSION_GRACE_SEC',
});
export type Session = Static<typeof Session>;

export const SessionList = Type.Object({
  sessions: Type.Array(Session),
  next_cursor: nullable(Type.String({ description: 'Pass as `cursor` for the next page' })),
});
export type SessionList = Static<typeof SessionList>;

export const SessionListQuery = Type.Object({
  limit: PageQuery(SESSIONS_LIMIT).properties.limit,
  cursor: Type.Optional(
    Type.String({ description: 'The `next_cursor` of the previous page, passed back unchanged.' }),
  ),
  status: Type.Optional(
    Type.Union([Type.Literal('active'), Type.Literal('ended')], {
      description: '`active`: not ended yet; `ended`: ended and still readable',
    }),
  ),
  direction: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')])),
});
export type SessionListQuery = Static<typeof SessionListQuery>;
