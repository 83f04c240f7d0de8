import { DEFERRED_TIMEOUT_MS } from '@voicegw/shared';
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

/** The body of a repeated command_uid comes back from Redis as the JSON of one of these. */
export type CommandReply = DeferredReply | MembershipReply;
