import { addCallerIds } from './addCallerIds.js';
import { admitInbound } from './admitInbound.js';
import { answerCommand } from './answerCommand.js';
import { bridgeConfirmed } from './bridgeConfirmed.js';
import { bridgeEnded } from './bridgeEnded.js';
import { bridgeRefused } from './bridgeRefused.js';
import { claimDids } from './claimDids.js';
import { conferenceMember } from './conferenceMember.js';
import { createRoom } from './createRoom.js';
import { deadLetterLane } from './deadLetterLane.js';
import { deleteRoom } from './deleteRoom.js';
import { endSession } from './endSession.js';
import { extendLeases } from './extendLeases.js';
import { failDeadCommands } from './failDeadCommands.js';
import { parkEvents } from './parkEvents.js';
import { placeDial } from './placeDial.js';
import { rateLimit } from './rateLimit.js';
import { recordingExpired } from './recordingExpired.js';
import { recordingStarted } from './recordingStarted.js';
import { recordingStopped } from './recordingStopped.js';
import { releaseDid } from './releaseDid.js';
import { replayDeadLetters } from './replayDeadLetters.js';
import { retryLaneNow } from './retryLaneNow.js';
import { roomControl } from './roomControl.js';
import { roomPlaybackDone } from './roomPlaybackDone.js';
import { routeEvents } from './routeEvents.js';
import { sessionCommands } from './sessionCommands.js';
import { settleLane } from './settleLane.js';
import { streamEnded } from './streamEnded.js';
import { updateSession } from './updateSession.js';
import { webhookFailed } from './webhookFailed.js';

/**
 * Every Lua script by name, each with the builder of its KEYS and ARGV (`<name>.ts` beside
 * `<name>-<keys>.lua`). The loader runs exactly these, and shared/test/script-headers.test.ts
 * holds this list to the directory and each builder to its script's header.
 */
export const SCRIPT_BUILDERS = {
  addCallerIds,
  admitInbound,
  answerCommand,
  bridgeConfirmed,
  bridgeEnded,
  bridgeRefused,
  claimDids,
  conferenceMember,
  createRoom,
  deadLetterLane,
  deleteRoom,
  endSession,
  extendLeases,
  failDeadCommands,
  parkEvents,
  placeDial,
  rateLimit,
  recordingExpired,
  recordingStarted,
  recordingStopped,
  releaseDid,
  replayDeadLetters,
  retryLaneNow,
  roomControl,
  roomPlaybackDone,
  routeEvents,
  sessionCommands,
  settleLane,
  streamEnded,
  updateSession,
  webhookFailed,
} as const;

export type ScriptName = keyof typeof SCRIPT_BUILDERS;
