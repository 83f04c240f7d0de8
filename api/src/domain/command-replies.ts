import { DEFERRED_TIMEOUT_MS, RING_TIMEOUT_SEC, transferTimeoutMs } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

// What a session command answers: the routes document these, and SessionCommands returns them.

/** A deferred command accepted: its command.result follows within timeout_ms. */
export const DeferredReply = Type.Object({
  operation_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('in_progress'),
  timeout_ms: Type.Integer({ const: DEFERRED_TIMEOUT_MS }),
});
export type DeferredReply = Static<typeof DeferredReply>;

/** A conference command: the session's membership as sessionCommands-n.lua changed it. */
export const MembershipReply = Type.Object({
  status: Type.Union([
    Type.Literal('joining'),
    Type.Literal('already_joined'),
    Type.Literal('leaving'),
    Type.Literal('muted'),
    Type.Literal('unmuted'),
  ]),
  room_id: Type.String(),
});
export type MembershipReply = Static<typeof MembershipReply>;

/**
 * A transfer accepted: its command.result follows once the new leg is bridged or has failed,
 * within timeout_ms (`timeout_sec` × 1000 + 2000).
 */
export const TransferReply = Type.Object({
  operation_id: Type.String({ format: 'uuid' }),
  status: Type.Literal('in_progress'),
  timeout_ms: Type.Integer({
    minimum: transferTimeoutMs(RING_TIMEOUT_SEC.minimum),
    maximum: transferTimeoutMs(RING_TIMEOUT_SEC.maximum),
    description: 'The ring time (`timeout_sec` × 1000) plus 2000 ms for the bridge.',
  }),
  peer_session_uuid: Type.String({
    description:
      "The new leg's session, created with this answer: its session.dialing and later events " +
      'carry `parent_session_uuid`.',
  }),
});
export type TransferReply = Static<typeof TransferReply>;

/** The body of a repeated command_uid comes back from Redis as the JSON of one of these. */
export type CommandReply = DeferredReply | MembershipReply | TransferReply;
