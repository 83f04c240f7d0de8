import {
  resultCommandName,
  type CommandMessage,
  type DialCommandMessage,
  type EventPayload,
  type RoomCommandMessage,
  type SessionCommandMessage,
} from '@voicegw/shared';
import { answerExpiredDial } from '../commands/dial.js';
import type { NodeContext } from '../context.js';

/** command.result errors of commands that never ran (clients may match on them). */
export const COMMAND_EXPIRED = 'Command expired: it was not started before its deadline';
export const NODE_LOST = 'Media node lost: the command could not run';

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

/** The command.result (success false) of a session command that could not run. */
export function failedResult(
  message: SessionCommandMessage,
  error: string,
): EventPayload<'command.result'> {
  return {
    event: 'command.result',
    session_uuid: message.session_id,
    operation_id: message.operation_id,
    command: resultCommandName(message.command),
    command_uid: message.command_uid,
    success: false,
    error,
  };
}

/**
 * Answers an expired command of this node's stream as the contract reports its failure: a
 * session command with its command.result, a dial with its session's call.hangup (failed), a
 * room control by not running it (a play also gives the room its stopped state back).
 */
export async function answerExpired(node: NodeContext, message: DeadlineCommand): Promise<void> {
  const command = message.kind === 'session' ? message.command : message.kind;
  node.metrics.commands.inc({ command, outcome: 'expired' });
  node.log.warn(
    { kind: message.kind, command, issued_at: message.issued_at },
    'command expired before it was read: answered, not executed',
  );
  switch (message.kind) {
    case 'session': {
      const metadata = node.sessions.get(message.session_id)?.metadata;
      await node.events.publish(message.app_id, failedResult(message, COMMAND_EXPIRED), metadata);
      return;
    }
    case 'dial':
      return answerExpiredDial(node, message);
    case 'room':
      return node.rooms.expire(message);
  }
}
