/**
 * The negative result codes of every Lua script, one table for all of them (BullMQ's ErrorCode
 * model): a code means the same thing whichever script answers it. Scripts see it as the Lua
 * table `ScriptCode` (`--- @include "scriptCodes"`, generated from this one by the loader), so
 * a code is never written twice. Append new codes; the numbers are compared by callers only,
 * never stored.
 */
export const ScriptCode = {
  /** The request exceeded a rate window; the value is the ms until it ends. */
  RATE_LIMITED: -1,
  SESSION_NOT_FOUND: -2,
  SESSION_OF_ANOTHER_APP: -3,
  /** The command's (or control's) cooldown has not passed. */
  COOLDOWN: -4,
  ROOM_NOT_FOUND: -5,
  ROOM_OF_ANOTHER_APP: -6,
  IN_DIFFERENT_ROOM: -7,
  NOT_IN_CONFERENCE: -8,
  STILL_JOINING: -9,
  ALREADY_MUTED: -10,
  ALREADY_UNMUTED: -11,
  STILL_LEAVING: -12,
  /** The command_uid is claimed by another command or body. */
  COMMAND_UID_REUSED: -13,
  /** A command of a batch raised an error; the value is its message. */
  COMMAND_FAILED: -14,
  APP_NOT_FOUND: -15,
  /** The DID is routed to another app; the values are the DID and that app. */
  DID_TAKEN: -16,
  DID_NOT_OF_APP: -17,
  /** The room name is taken in the app; the value is the existing room's id. */
  ROOM_NAME_TAKEN: -18,
  /** A member joined between the caller's read of the member set and the script: read again. */
  ROOM_MEMBERS_CHANGED: -19,
  CALLER_ID_NOT_ALLOWED: -20,
  /** The chosen node is gone, draining or without outbound capacity. */
  NODE_UNAVAILABLE: -21,
  SESSION_EXISTS: -22,
  /** The node's heartbeat exists: its own consumer answers its commands. */
  NODE_ALIVE: -23,
  /** The lane head is no longer the one the caller read. */
  LANE_HEAD_CHANGED: -24,
  /** The session was reported over already (a call its node lost track of). */
  SESSION_ENDED: -25,
  /** The DID routes to another app than the caller expected; the value is that app ('' for none). */
  DID_ROUTE_CHANGED: -26,
  /** stream/start on a session whose media stream is running (the session's `stream` field). */
  STREAM_ALREADY_RUNNING: -27,
  /** stream/stop on a session without a media stream. */
  NO_STREAM: -28,
  // Connecting calls (docs/decisions/connecting-calls.md). NOT_ANSWERED, IN_CONFERENCE and
  // ALREADY_BRIDGED carry the value 'peer' when the bridge's other session is the one at fault.
  /** bridge: the other session does not exist, has ended, or its node is gone. */
  PEER_NOT_FOUND: -29,
  /** bridge: the other session belongs to another app. */
  PEER_OF_ANOTHER_APP: -30,
  NOT_ANSWERED: -31,
  IN_CONFERENCE: -32,
  /** bridge or transfer on a session that is bridging, bridged, unbridging or transferring. */
  ALREADY_BRIDGED: -33,
  /** unbridge on a session in no bridge. */
  NOT_BRIDGED: -34,
  /** unbridge while the bridge is being made or taken down, or a transfer's leg rings. */
  BRIDGE_PENDING: -35,
  /** A command the bridge's audio excludes (a playback, digits, a conference) while bridged. */
  BRIDGED: -36,
  /** unbridge: the session's bridge peer is not the one the caller read: read again. */
  BRIDGE_PEER_CHANGED: -37,
  /** The event router's cursor is not where this router left it: another router holds it. */
  ROUTER_DISPLACED: -38,
} as const;

export type ScriptCodeName = keyof typeof ScriptCode;

/**
 * The code of a failed script reply (a negative `code`, or `[code, ...values]`); undefined for
 * any other reply (a list of members, say, whose entries are strings).
 */
export function failureCode(reply: unknown): number | undefined {
  const head: unknown = Array.isArray(reply) ? reply[0] : reply;
  return typeof head === 'number' && head < 0 ? head : undefined;
}

/** The name of a negative code, for messages; undefined for one not in the table. */
export function scriptCodeName(code: number): ScriptCodeName | undefined {
  return (Object.keys(ScriptCode) as ScriptCodeName[]).find((name) => ScriptCode[name] === code);
}

/** The table as Lua, as the loader inlines it for `--- @include "scriptCodes"`. */
export function scriptCodesLua(): string {
  const entries = Object.entries(ScriptCode).map(([name, code]) => `  ${name} = ${code},`);
  return [
    '-- Result codes, generated from shared/src/redis/script-codes.ts.',
    'local ScriptCode = {',
    ...entries,
    '}',
  ].join('\n');
}
