import type { EventPayload } from '../events/payloads.js';
import { resultCommandName } from './schemas.js';
import type { SessionCommandMessage } from './stream.js';

/** The consumer group of every media node's command stream. */
export const COMMAND_GROUP = 'media-node';

/** command.result error of a command whose node died before it answered (clients may match on it). */
export const NODE_LOST = 'Media node lost: the command could not run';

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
    ...transferFailure(message),
  };
}

/** A transfer's failure also says how its new leg ended up, and names the leg. */
const transferFailure = (message: SessionCommandMessage) =>
  isTransfer(message)
    ? { outcome: 'failed' as const, peer_session_uuid: message.args.peer_session_uuid }
    : {};

const isTransfer = (message: SessionCommandMessage): message is SessionCommandMessage<'transfer'> =>
  message.command === 'transfer';
