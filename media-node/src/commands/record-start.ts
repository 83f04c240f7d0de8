import { Playback } from '../session/playback.js';
import type { Session } from '../session/session.js';
import type { SessionCommand } from './types.js';

/** The streamed recording's format: mono L16 at 8 kHz, as the telephone network carries it. */
const SAMPLE_RATE = 8000;

/**
 * record/start: FreeSWITCH records the call, by RECORDING_MODE: `file` (default) with its own
 * uuid_record into the shared recordings volume, `stream` by streaming mono L16
 * (mod_audio_stream) to this node's recording receiver, which writes the WAV. As the contract
 * says, an endless silence stream starts too (the current playback stops first, as with
 * playback/silence, but the recording's silence sends no playback events). command.result at
 * once: success when FreeSWITCH took it. A session already recording answers success false and
 * keeps its recording; so does one with a media stream, in stream mode (FreeSWITCH's module holds
 * one stream per call). No silence stream starts beside a bidirectional media stream, nor on a
 * bridged session (or one whose transfer rings): FreeSWITCH records both parties of a bridge.
 */
export const recordStart: SessionCommand<'record/start'> = {
  name: 'record/start',
  esl: 'file mode: api uuid_record <uuid> start <FS_RECORDINGS_DIR>/<session>/<recording id>.wav; stream mode: api uuid_audio_stream <uuid> start <RECORDING_SERVICE_URL>/<session>/<recording id> mono 8k; then api uuid_break; sendmsg execute playback silence_stream://-1',
  confirmedBy: 'the uuid_record / uuid_audio_stream reply (+OK)',
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
    const taken = session.node.streams.forkTaken(session, 'recording');
    if (taken !== undefined) {
      await ctx.result(false, taken);
      return;
    }
    let recording;
    try {
      recording = await recordings.prepare(session, message.command_uid, SAMPLE_RATE);
    } catch (err) {
      session.log.error({ err }, 'recording not prepared');
      await ctx.result(false, 'Recording could not be prepared');
      return;
    }
    const refusal = await recording.capture.begin();
    if (refusal !== undefined) {
      await recordings.abandon(session);
      await ctx.result(false, refusal);
      return;
    }
    // A bidirectional stream's audio keeps the call's media going; a second writer would garble it.
    // A bridge carries the call's audio both ways: a playback on top would cut the peer off.
    if (!session.node.streams.playing(session) && !session.bridge)
      await startSilence(session, message.command_uid);
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
