import { failedResult, type CommandMessage, type SessionCommandMessage } from '@voicegw/shared';
import { publishResult } from '../commands/result.js';
import type { NodeContext } from '../context.js';

/** command.result error of a command that never ran (clients may match on it). */
export const COMMAND_EXPIRED = 'Command expired: it was not started before its deadline';

/**
 * Whether a command is past its deadline, `deadlineMs` after the api accepted it (`issued_at`),
 * and must be answered as expired rather than executed late. Only session commands have a
 * deadline: they alone owe a command.result (dials end through their session's call.hangup,
 * room and member commands have no result event).
 */
export function isExpired(
  message: CommandMessage,
  deadlineMs: number,
  now = Date.now(),
): message is SessionCommandMessage {
  return message.kind === 'session' && now > message.issued_at + deadlineMs;
}

/** Answers an expired command of this node's stream, with its session's metadata if it is here. */
export async function answerExpired(
  node: NodeContext,
  message: SessionCommandMessage,
  entryId: string,
): Promise<void> {
  node.metrics.commands.inc({ command: message.command, outcome: 'expired' });
  node.log.warn(
    { session_uuid: message.session_id, command: message.command, issued_at: message.issued_at },
    'command expired before it was read: answered, not executed',
  );
  const metadata = node.sessions.get(message.session_id)?.metadata;
  await publishResult(
    node,
    entryId,
    message.app_id,
    failedResult(message, COMMAND_EXPIRED),
    metadata,
  );
}
