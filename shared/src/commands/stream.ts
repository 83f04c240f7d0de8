import type { DialArgs, SessionCommandArgs, SessionCommandName } from './schemas.js';

/**
 * Messages on a media node's command stream `cmd:{prefix}`. Each stream entry has one field,
 * `c`, holding the JSON of one message; the api appends, the node's consumer group reads.
 */
export type CommandMessage =
  SessionCommandMessage | RoomCommandMessage | DialCommandMessage | MemberCommandMessage;

/**
 * What the api adds to a command's body for the media node: a transfer's new leg, the session
 * the api created for it in the same script run (docs/decisions/connecting-calls.md).
 */
interface AddedArgs {
  readonly transfer: {
    /** The new leg's session id: `{prefix}-{uuid}`, the uuid its origination_uuid. */
    readonly peer_session_uuid: string;
  };
}

/**
 * A command's arguments as its media node reads them: the request body (defaults filled in,
 * without the envelope's `command_uid`), with what the api adds (AddedArgs).
 */
export type SessionCommandMessageArgs<C extends SessionCommandName = SessionCommandName> =
  C extends keyof AddedArgs
    ? Omit<SessionCommandArgs<C>, 'command_uid'> & AddedArgs[C]
    : Omit<SessionCommandArgs<C>, 'command_uid'>;

export interface SessionCommandMessage<C extends SessionCommandName = SessionCommandName> {
  readonly kind: 'session';
  readonly command: C;
  readonly session_id: string;
  readonly app_id: string;
  readonly operation_id: string;
  readonly command_uid: string;
  readonly args: SessionCommandMessageArgs<C>;
  /** Epoch ms at which the api accepted the command (deferred timeouts count from here). */
  readonly issued_at: number;
}

/**
 * The contract's deferred-command timeout: the api promises it in each 202 (`timeout_ms`), and
 * the media node reports success false when FreeSWITCH has not confirmed within it.
 */
export const DEFERRED_TIMEOUT_MS = 2000;

/**
 * A transfer's `timeout_ms`: its result comes once the new leg is answered and bridged or has
 * failed, so the ring time (`timeout_sec`) plus the deferred timeout of the bridge itself.
 */
export const transferTimeoutMs = (timeoutSec: number): number =>
  timeoutSec * 1000 + DEFERRED_TIMEOUT_MS;

export type RoomCommandName = 'play' | 'pause' | 'stop' | 'volume' | 'destroy';

export interface RoomCommandMessage {
  readonly kind: 'room';
  readonly command: RoomCommandName;
  readonly room_id: string;
  readonly app_id: string;
  readonly operation_id: string;
  readonly args: { readonly urls?: readonly string[]; readonly volume?: number };
  readonly issued_at: number;
}

export interface DialCommandMessage {
  readonly kind: 'dial';
  readonly session_id: string;
  readonly app_id: string;
  readonly args: DialArgs;
  readonly issued_at: number;
}

/**
 * Between media nodes, for a session that joined a room hosted by another node through a bridge
 * leg (a cross-node conference member). `mute`/`unmute` go to the room's host node, which
 * carries them out on the leg's member; `event` goes to the session's node: what the host's
 * FreeSWITCH reported about that member (conference::maintenance `action`).
 */
export interface MemberCommandMessage {
  readonly kind: 'member';
  readonly command: 'mute' | 'unmute' | 'event';
  readonly room_id: string;
  readonly session_id: string;
  readonly member_id: string;
  /** `event` only: add-member, mute-member, unmute-member or del-member. */
  readonly action?: string;
  /** `event` only: FreeSWITCH's Speak flag of the member (false = muted). */
  readonly speak?: boolean;
  /** `event` only: the session node's bridge leg (its channel uuid) the member belongs to. */
  readonly leg?: string;
  readonly issued_at: number;
}

export const COMMAND_FIELD = 'c';

export const encodeCommand = (message: CommandMessage): string => JSON.stringify(message);

export function decodeCommand(raw: string): CommandMessage {
  const message = JSON.parse(raw) as CommandMessage;
  if (!message || !['session', 'room', 'dial', 'member'].includes(message.kind)) {
    throw new Error(
      `unknown command message kind: ${String((message as { kind?: unknown })?.kind)}`,
    );
  }
  return message;
}
