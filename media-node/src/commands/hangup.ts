import { describe, type SessionCommand } from './types.js';

/** hangup: command.result as soon as FreeSWITCH took the kill; call.hangup follows on teardown. */
export const hangup: SessionCommand<'hangup'> = {
  name: 'hangup',
  esl: 'api uuid_kill <uuid> <cause>',
  confirmedBy: 'the api reply (+OK); CHANNEL_HANGUP_COMPLETE then ends the session',
  async start(ctx) {
    const { channel } = ctx.session;
    const cause = ctx.message.args.cause ?? 'NORMAL_CLEARING';
    try {
      const reply = await channel.api(`uuid_kill ${channel.uuid} ${cause}`);
      const ok = reply.startsWith('+OK');
      await ctx.result(ok, ok ? undefined : reply.trim());
    } catch (err) {
      await ctx.result(false, describe(err));
    }
  },
};
