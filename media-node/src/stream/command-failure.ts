import {
  failedResult,
  type CommandMessage,
  type DialCommandMessage,
  type RoomCommandMessage,
  type SessionCommandMessage,
} from '@voicegw/shared';
import { answerExpiredDial } from '../commands/dial.js';
import { publishResult } from '../commands/result.js';
import { publishStreamEnd, unstartedStream } from '../media-stream/stream-end.js';
import type { NodeWithSessions } from '../session/registry.js';

/** command.result error of a command that never ran (clients may match on it). */
export const COMMAND_EXPIRED = 'Command expired: it was not started before its deadline';

/** The commands that have a deadline: every kind an app sends through the api. */
export type DeadlineCommand = SessionCommandMessage | DialCommandMessage | RoomCommandMessage;

/**
 * Whether a command is past its deadline, `deadlineMs` after the api accepted it (`issued_at`),
 * and must be answered as expired rather than executed late: a call placed or a room play begun
 * long after the app asked surprises it more than a failure does. Two kinds run whatever their
 * age: a room's `destroy` only tears down in FreeSWITCH a room the api has already deleted, and
 * member messages are between nodes, part of a session command that has its own deadline.
 */
export function isExpired(
  message: CommandMessage,
  deadlineMs: number,
  now = Date.now(),
): message is DeadlineCommand {
  if (message.kind === 'member') return false;
  if (message.kind === 'room' && message.command === 'destroy') return false;
  return now > message.issued_at + deadlineMs;
}

/**
 * Answers an expired command of this node's stream (entry `entryId`) as the contract reports its
 * failure: a session command with its command.result, a dial with its session's call.hangup
 * (failed), a room control by not running it (a play also gives the room its stopped state back).
 */
export async function answerExpired(
  node: NodeWithSessions,
  message: DeadlineCommand,
  entryId: string,
): Promise<void> {
  const command = message.kind === 'session' ? message.command : message.kind;
  node.metrics.commands.inc({ command, outcome: 'expired' });
  node.log.warn(
    { kind: message.kind, command, issued_at: message.issued_at },
    'command expired before it was read: answered, not executed',
  );
  switch (message.kind) {
    case 'session': {
      const metadata = node.sessions.get(message.session_id)?.metadata;
      const failed = unstartedStream(message, COMMAND_EXPIRED);
      if (failed) await publishStreamEnd(node, message.app_id, failed, metadata);
      const result = failedResult(message, COMMAND_EXPIRED);
      await publishResult(node, entryId, message.app_id, result, metadata);
      return;
    }
    case 'dial':
      return answerExpiredDial(node, message);
    case 'room':
      return node.rooms.expire(message);
  }
}
