import { Playback } from '../session/playback.js';
import type { Session } from '../session/session.js';
import { describe, type SessionCommand } from './types.js';

/** The recording format: mono L16 at 8 kHz, as the telephone network carries it. */
const SAMPLE_RATE = 8000;

/**
 * record/start: FreeSWITCH streams the call's audio (mod_audio_stream, mono L16) to this node's
 * recording receiver, which writes the WAV; as the contract says, an endless silence stream
 * starts too (the current playback stops first, as with playback/silence, but the recording's
 * silence sends no playback events). command.result at once: success when FreeSWITCH took the
 * stream. A session already recording answers success false and keeps its recording.
 */
export const recordStart: SessionCommand<'record/start'> = {
  name: 'record/start',
  esl: 'api uuid_audio_stream <uuid> start <RECORDING_SERVICE_URL>/<session>/<recording id> mono 8k; api uuid_break; sendmsg execute playback silence_stream://-1',
  confirmedBy: 'the uuid_audio_stream reply (+OK)',
  async start(ctx) {
    const { session, message } = ctx;
    const { recordings } = session.node;
    if (!recordings.enabled) {
      await ctx.result(false, 'Recording is not configured on this media node');
      return;
    }
    if (recordings.current(session)) {
      await ctx.result(false, 'Session is already recording');
      return;
    }
    let streamUrl: string;
    try {
      ({ streamUrl } = await recordings.prepare(session, message.command_uid, SAMPLE_RATE));
    } catch (err) {
      session.log.error({ err }, 'recording not prepared');
      await ctx.result(false, 'Recording could not be prepared');
      return;
    }
    const { channel } = session;
    let reply: string;
    try {
      reply = await channel.api(
        `uuid_audio_stream ${channel.uuid} start ${streamUrl} mono ${SAMPLE_RATE / 1000}k`,
      );
    } catch (err) {
      reply = describe(err);
    }
    if (!reply.startsWith('+OK')) {
      await recordings.abandon(session);
      await ctx.result(false, reply.trim());
      return;
    }
    await startSilence(ctx.session, message.command_uid);
    await ctx.result(true);
  },
};

/** The endless silence stream, as playback/silence starts it (last wins), but quiet. */
async function startSilence(session: Session, commandUid: string): Promise<void> {
  const recording = session.node.recordings.current(session);
  await session.playback?.stop().catch((err: unknown) => {
    session.log.warn({ err }, 'current playback not stopped for the recording');
  });
  const silence = new Playback(session, commandUid, [], 'silence');
  silence.quiet = true;
  session.playback = silence;
  if (recording) recording.silence = silence;
  try {
    await silence.play('silence_stream://-1');
  } catch (err) {
    // The recording runs regardless; the silence is what the contract adds to it.
    session.log.warn({ err }, 'silence stream of the recording not started');
  }
}
