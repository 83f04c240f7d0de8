import { DEFERRED_TIMEOUT_MS } from '@voicegw/shared';
import { Playback } from '../session/playback.js';
import { describe, type SessionCommand } from './types.js';

/**
 * playback/silence: the current playback stops (its playback.stopped follows) and an endless
 * silence stream plays until hangup or the next playback; its playback.stopped (urls empty)
 * fires when it ends, hangup included. Deferred: confirmed when the application runs.
 */
export const playbackSilence: SessionCommand<'playback/silence'> = {
  name: 'playback/silence',
  esl: 'api uuid_break (the current playback); sendmsg execute playback silence_stream://-1',
  confirmedBy: 'CHANNEL_EXECUTE of its Application-UUID',
  async start(ctx) {
    const { session, message } = ctx;
    await session.playback?.stop();
    const silence = new Playback(session, message.command_uid, [], 'silence');
    session.playback = silence;
    session.node.streams.yieldAudio(session, silence.end);
    try {
      await silence.play('silence_stream://-1');
    } catch (err) {
      await ctx.result(false, describe(err));
      return;
    }
    const confirmed = silence
      .waitStarted(DEFERRED_TIMEOUT_MS)
      .then((started) =>
        session.serial(() =>
          ctx.result(started, started ? undefined : 'silence not started within 2000 ms'),
        ),
      );
    return { confirmed };
  },
};
