import { fileman } from './fileman.js';
import type { SessionCommand } from './types.js';

/** playback/restart: back to the beginning of the file; command.result at once. */
export const playbackRestart: SessionCommand<'playback/restart'> = {
  name: 'playback/restart',
  esl: 'api uuid_fileman <uuid> restart',
  confirmedBy: 'the api reply (+OK)',
  start: (ctx) => fileman(ctx, 'restart'),
};
