import { describe, type SessionCommand } from './types.js';

/**
 * playback/stop: the current playback (or silence stream, or one still being fetched) stops;
 * command.result at once; its playback.stopped, with its own command_uid, follows from
 * PLAYBACK_STOP/EXECUTE_COMPLETE. Stopping when nothing plays succeeds.
 */
export const playbackStop: SessionCommand<'playback/stop'> = {
  name: 'playback/stop',
  esl: 'api uuid_break <uuid>',
  confirmedBy: 'the api reply (+OK)',
  async start(ctx) {
    try {
      await ctx.session.playback?.stop();
      await ctx.result(true);
    } catch (err) {
      await ctx.result(false, describe(err));
    }
  },
};
