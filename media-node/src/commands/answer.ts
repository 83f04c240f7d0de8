import { randomUUID } from 'node:crypto';
import { DEFERRED_TIMEOUT_MS, hopTrace, type EventPayload } from '@voicegw/shared';
import { confirmation, describe, type SessionCommand } from './types.js';

/**
 * answer: deferred. call.answered {command_uid, success} and command.result true once the
 * channel is answered; command.result false after 2000 ms without it, or when FreeSWITCH refuses.
 * The command settles once: whichever of confirmation, timeout and refusal comes first reports,
 * and the session's count of answer commands in flight drops once (a refusal after the timeout,
 * an ESL reply later than 2000 ms, changes nothing).
 */
export const answer: SessionCommand<'answer'> = {
  name: 'answer',
  esl: 'sendmsg execute answer (Event-UUID, event-lock)',
  confirmedBy:
    'CHANNEL_ANSWER, or CHANNEL_EXECUTE_COMPLETE of its Application-UUID on an answered channel',
  async start(ctx) {
    const { session } = ctx;
    const { channel } = session;
    const applicationUuid = randomUUID();
    session.answerCommands++;
    let settled = false;
    const { confirmed, settle } = confirmation();
    const finish = (answered: boolean, error: string): void => {
      if (settled) return;
      settled = true;
      hopTrace.mark(ctx.message.operation_id, 'node.confirmed');
      session.answerCommands--;
      const reported: EventPayload[] = answered
        ? [
            {
              event: 'call.answered',
              session_uuid: session.id,
              command_uid: ctx.message.command_uid,
              success: true,
              ...session.parent,
            },
          ]
        : [];
      settle(session.serial(() => ctx.result(answered, answered ? undefined : error, reported)));
    };
    const cancel = channel.expect(
      (event) =>
        event.name === 'CHANNEL_ANSWER' ||
        (event.name === 'CHANNEL_EXECUTE_COMPLETE' &&
          event.header('Application-UUID') === applicationUuid),
      DEFERRED_TIMEOUT_MS,
      (event) => finish(event !== undefined && channel.answered, 'not answered within 2000 ms'),
    );
    try {
      await channel.execute('answer', '', applicationUuid);
    } catch (err) {
      cancel();
      finish(false, describe(err));
    }
    return { confirmed };
  },
};
