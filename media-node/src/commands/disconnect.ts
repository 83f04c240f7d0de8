import { describe, type SessionCommand } from './types.js';

/**
 * disconnect: returns the call to the dialplan (a configurable extension); command.result at
 * once. The session stays until the call ends there, with its call.hangup.
 */
export const disconnect: SessionCommand<'disconnect'> = {
  name: 'disconnect',
  esl: 'api uuid_transfer <uuid> <DISCONNECT_EXTENSION> <DISCONNECT_DIALPLAN> <DISCONNECT_CONTEXT>',
  confirmedBy: 'the api reply (+OK)',
  async start(ctx) {
    const { session } = ctx;
    const { DISCONNECT_EXTENSION, DISCONNECT_DIALPLAN, DISCONNECT_CONTEXT } = session.node.config;
    try {
      const reply = await session.channel.api(
        `uuid_transfer ${session.channel.uuid} ${DISCONNECT_EXTENSION} ${DISCONNECT_DIALPLAN} ${DISCONNECT_CONTEXT}`,
      );
      const ok = reply.startsWith('+OK');
      await ctx.result(ok, ok ? undefined : reply.trim());
    } catch (err) {
      await ctx.result(false, describe(err));
    }
  },
};
