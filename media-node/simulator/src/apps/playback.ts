// playback <file>[<delimiter><file>…]: FILE PLAYED when something played (even if broken off),
// FILE NOT FOUND when the file could not be fetched or opened, PLAYBACK ERROR on hangup.
import type { AppImpl } from '../core/context.js';
import { FilePlayback, splitFiles } from './file-playback.js';
import { FILE_GAP_MS } from '../core/timing.js';

export const playback: AppImpl = (ch, arg, ctx) => {
  const media = new FilePlayback(ch, ctx);
  const run = async (): Promise<string> => {
    const files = splitFiles(ch, arg);
    for (let i = 0; i < files.length; i++) {
      if (i > 0 && (await media.pause(FILE_GAP_MS))) break;
      const how = await media.play(files[i]!);
      if (how === 'not_found') return 'FILE NOT FOUND';
      if (how === 'hangup') return 'PLAYBACK ERROR';
      if (how === 'break') break;
    }
    return media.hungUp ? 'PLAYBACK ERROR' : 'FILE PLAYED';
  };
  return {
    done: run(),
    hangup: () => media.hangup(),
    breakMedia: () => media.breakMedia(),
    suspend: () => media.suspend(),
    resume: () => media.resume(),
    fileHandle: () => media.player,
    acceptsMessages: () => media.inMediaLoop,
    dtmf: (digit) => {
      // playback_terminators defaults to "*"; "none" disables barge-in.
      const terms = ch.vars.get('playback_terminators') ?? '*';
      if (terms !== 'none' && terms.includes(digit) && media.breakMedia()) {
        ch.vars.set('playback_terminator_used', digit);
      }
    },
  };
};
