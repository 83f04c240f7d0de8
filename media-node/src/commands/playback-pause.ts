import { playing } from './fileman.js';
import { describe, type CommandContext, type SessionCommand } from './types.js';

// uuid_fileman has no resume: `pause` toggles. The node tracks the paused state, so pause on a
// paused playback and resume on a playing one succeed without touching FreeSWITCH.

async function setPaused(ctx: CommandContext, paused: boolean): Promise<void> {
  const playback = playing(ctx);
  if (!playback) {
    await ctx.result(false, 'No active playback');
    return;
  }
  if (playback.paused === paused) {
    await ctx.result(true);
    return;
  }
  try {
    const reply = await playback.togglePause();
    const ok = reply.startsWith('+OK');
    await ctx.result(ok, ok ? undefined : reply.trim());
  } catch (err) {
    await ctx.result(false, describe(err));
  }
}

/** playback/pause: command.result at once. */
export const playbackPause: SessionCommand<'playback/pause'> = {
  name: 'playback/pause',
  esl: 'api uuid_fileman <uuid> pause (a toggle; only when playing)',
  confirmedBy: 'the api reply (+OK)',
  start: (ctx) => setPaused(ctx, true),
};

/** playback/resume: command.result at once. */
export const playbackResume: SessionCommand<'playback/resume'> = {
  name: 'playback/resume',
  esl: 'api uuid_fileman <uuid> pause (the same toggle; only when paused)',
  confirmedBy: 'the api reply (+OK)',
  start: (ctx) => setPaused(ctx, false),
};
