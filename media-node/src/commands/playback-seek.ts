import { fileman } from './fileman.js';
import type { SessionCommand } from './types.js';

/** playback/seek: relative, forward (+) or backward (-); command.result at once. */
export const playbackSeek: SessionCommand<'playback/seek'> = {
  name: 'playback/seek',
  esl: 'api uuid_fileman <uuid> seek:+<ms>|seek:-<ms>',
  confirmedBy: 'the api reply (+OK)',
  start: (ctx) => {
    const ms = Math.trunc(ctx.message.args.position_ms);
    return fileman(ctx, `seek:${ms >= 0 ? '+' : '-'}${Math.abs(ms)}`);
  },
};
