import { Type, type Static, type TObject, type TProperties } from 'typebox';
import { STREAM_TRACKS } from '../commands/schemas.js';
import type { EventName } from './names.js';

// Payload schemas of every event: the contract's fields, plus our own choices (docs/decisions/)
// where the contract says "not shown". The webhook envelope (event_id, app_id, timestamp,
// metadata) is added by the publisher and described in envelope.ts.

const Str = Type.String();
const Urls = Type.Array(Type.String());
const SessionUuid = Type.String({ description: 'Session identifier `<prefix>-<uuid>`.' });

const session = <P extends TProperties>(name: EventName, props: P) =>
  Type.Object({ event: Type.Literal(name), session_uuid: SessionUuid, ...props });
const room = <P extends TProperties>(name: EventName, props: P) =>
  Type.Object({ event: Type.Literal(name), room_id: Str, ...props });

export const HANGUP_CAUSES = [
  'completed',
  'busy',
  'rejected',
  'no_answer',
  'unavailable',
  'failed',
] as const;
export type HangupCause = (typeof HANGUP_CAUSES)[number];

export const DIGITS_STATUSES = ['success', 'timeout', 'invalid', 'max_tries'] as const;

/** Why a media stream that started ended. */
export const STREAM_STOP_REASONS = ['stopped', 'hangup', 'closed_by_app', 'error'] as const;
export type StreamStopReason = (typeof STREAM_STOP_REASONS)[number];

const streamProps = {
  stream_id: Type.String({ description: 'The operation_id of the stream/start that began it.' }),
  command_uid: Str,
};

/**
 * Why a session left its bridge: an `unbridge` command (either side's), the other party hung
 * up, this session hung up, or the connection between them failed (the SIP leg between two
 * media nodes dropped) with both calls still up.
 */
export const UNBRIDGE_REASONS = ['unbridged', 'peer_hangup', 'hangup', 'error'] as const;
export type UnbridgeReason = (typeof UNBRIDGE_REASONS)[number];

/** How a transfer's new leg ended up: bridged once answered, or why it never was. */
export const TRANSFER_OUTCOMES = ['answered', 'busy', 'no_answer', 'rejected', 'failed'] as const;
export type TransferOutcome = (typeof TRANSFER_OUTCOMES)[number];

const PeerSessionUuid = Type.String({ description: 'The other session of the bridge.' });
/** On the events of a transfer's new leg: the session it was placed for. */
const parentProps = {
  parent_session_uuid: Type.Optional(
    Type.String({ description: "A transfer's new leg: the session that transferred." }),
  ),
};

const memberProps = {
  room_id: Str,
  member_id: Type.Optional(Str),
  muted: Type.Boolean(),
};

export const EventPayloadSchemas = {
  'call.new': session('call.new', { caller_id: Str, did: Str }),
  'call.answered': session('call.answered', {
    command_uid: Type.Optional(Str),
    success: Type.Optional(Type.Boolean()),
    ...parentProps,
  }),
  'call.hangup': session('call.hangup', {
    hangup_cause: Type.Enum(HANGUP_CAUSES),
    duration_seconds: Type.Integer({ minimum: 0 }),
    ...parentProps,
  }),
  dtmf: session('dtmf', { digit: Str, duration_ms: Type.Integer({ minimum: 0 }) }),
  'command.result': session('command.result', {
    operation_id: Str,
    command: Str,
    command_uid: Str,
    success: Type.Boolean(),
    error: Type.Optional(Str),
    outcome: Type.Optional(
      Type.Enum(TRANSFER_OUTCOMES, { description: "A transfer's: how its new leg ended up." }),
    ),
    peer_session_uuid: Type.Optional(
      Type.String({ description: "A transfer's: its new leg; a bridge's: the other session." }),
    ),
  }),
  'playback.started': session('playback.started', { command_uid: Str, urls: Urls, file_path: Str }),
  'playback.stopped': session('playback.stopped', {
    command_uid: Str,
    urls: Urls,
    file_path: Str,
    offset_ms: Type.Integer({ minimum: 0 }),
    duration_ms: Type.Integer({ minimum: 0 }),
  }),
  'playback.file_not_found': session('playback.file_not_found', {
    command_uid: Str,
    urls: Urls,
    file_path: Str,
  }),
  'digits.collected': session('digits.collected', {
    command_uid: Str,
    digits: Str,
    terminator: Str,
    status: Type.Enum(DIGITS_STATUSES),
  }),
  'recording.completed': session('recording.completed', {
    recording_url: Str,
    duration: Type.Number({ minimum: 0 }),
    command_uid: Str,
  }),
  'session.dialing': session('session.dialing', { to: Str, from: Str, ...parentProps }),
  'session.ringing': session('session.ringing', { to: Str, from: Str, ...parentProps }),
  'session.early_media': session('session.early_media', { to: Str, from: Str, ...parentProps }),
  'conference.created': room('conference.created', { name: Str }),
  'conference.destroyed': room('conference.destroyed', {}),
  'conference.play.started': room('conference.play.started', { urls: Urls, operation_id: Str }),
  'conference.play.finished': room('conference.play.finished', { urls: Urls, operation_id: Str }),
  'conference.play.paused': room('conference.play.paused', { operation_id: Str }),
  'conference.play.stopped': room('conference.play.stopped', { operation_id: Str }),
  'conference.play.volume_changed': room('conference.play.volume_changed', {
    volume: Type.Integer({ minimum: -50, maximum: 7 }),
    operation_id: Str,
  }),
  'conference.member.joined': session('conference.member.joined', memberProps),
  'conference.member.left': session('conference.member.left', memberProps),
  'conference.member.muted': session('conference.member.muted', memberProps),
  'conference.member.unmuted': session('conference.member.unmuted', memberProps),
  'stream.started': session('stream.started', {
    ...streamProps,
    url: Str,
    track: Type.Enum(STREAM_TRACKS),
    bidirectional: Type.Boolean(),
  }),
  'stream.stopped': session('stream.stopped', {
    ...streamProps,
    reason: Type.Enum(STREAM_STOP_REASONS),
    duration_ms: Type.Integer({ minimum: 0 }),
    frames_sent: Type.Integer({ minimum: 0, description: 'Media frames sent to the application.' }),
    frames_received: Type.Integer({
      minimum: 0,
      description: 'Media frames received from the application.',
    }),
  }),
  'stream.failed': session('stream.failed', {
    ...streamProps,
    url: Str,
    reason: Type.String({ description: 'Why the stream could not start.' }),
  }),
  'call.bridged': session('call.bridged', {
    peer_session_uuid: PeerSessionUuid,
    command_uid: Type.String({
      description: 'The bridge or transfer command that connected them.',
    }),
  }),
  'call.unbridged': session('call.unbridged', {
    peer_session_uuid: PeerSessionUuid,
    reason: Type.Enum(UNBRIDGE_REASONS),
    duration_ms: Type.Integer({ minimum: 0, description: 'How long the two were connected.' }),
  }),
} satisfies Record<EventName, TObject>;

type Schemas = typeof EventPayloadSchemas;

/** The payload of one event, derived from its schema. */
export type EventPayload<N extends EventName = EventName> = N extends EventName
  ? Static<Schemas[N]>
  : never;
