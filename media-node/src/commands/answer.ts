import { randomUUID } from 'node:crypto';
import { hopTrace } from '@voicegw/shared';
import { DEFERRED_TIMEOUT_MS, describe, type SessionCommand } from './types.js';

/**
 * answer: deferred. call.answered {command_uid, success} and command.result true once the
 * channel is answered; command.result false after 2000 ms without it.
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
    let settle!: () => void;
    const settled = new Promise<void>((resolve) => (settle = resolve));
    const confirm = (answered: boolean): void => {
      hopTrace.mark(ctx.message.operation_id, 'node.confirmed');
      session.answerCommands--;
      void session
        .serial(async () => {
          // Both XADDs are issued at once on the node's one Redis connection, which appends
          // them in this order: command.result does not wait for call.answered's round trip.
          const call = answered
            ? session.publish({
                event: 'call.answered',
                session_uuid: session.id,
                command_uid: ctx.message.command_uid,
                success: true,
              })
            : undefined;
          const result = ctx.result(answered, answered ? undefined : 'not answered within 2000 ms');
          await Promise.all([call, result]);
        })
        .finally(settle);
    };
    const cancel = channel.expect(
      (event) =>
        event.name === 'CHANNEL_ANSWER' ||
        (event.name === 'CHANNEL_EXECUTE_COMPLETE' &&
          event.header('Application-UUID') === applicationUuid),
      DEFERRED_TIMEOUT_MS,
      (event) => confirm(event !== undefined && channel.answered),
    );
    try {
      await channel.execute('answer', '', applicationUuid);
    } catch (err) {
      cancel();
      session.answerCommands--;
      await ctx.result(false, describe(err));
      return;
    }
    return { confirmed: settled };
  },
};
