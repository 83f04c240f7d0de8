import { describe, type SessionCommand } from './types.js';

/**
 * record/stop: FreeSWITCH stops the recording (file mode: `uuid_record stop`, then FreeSWITCH
 * closes the file and fires RECORD_STOP; stream mode: `uuid_audio_stream stop`, then the
 * receiver finalises the WAV once the stream has closed), the recording's silence stream stops
 * (unless a later playback replaced it), each waited for within a short bound, and then
 * command.result and recording.completed {recording_url, duration, command_uid of the
 * record/start} are published, so the URL serves the whole file from the moment the event
 * fires. Without a recording: success false and no event.
 */
export const recordStop: SessionCommand<'record/stop'> = {
  name: 'record/stop',
  esl: 'file mode: api uuid_record <uuid> stop <path>; stream mode: api uuid_audio_stream <uuid> stop; then api uuid_break (the silence stream)',
  confirmedBy:
    'file mode: RECORD_STOP of the path; stream mode: the receiver has the last frame when the socket closes',
  async start(ctx) {
    const { session } = ctx;
    const { recordings } = session.node;
    const recording = recordings.current(session);
    if (!recording) {
      await ctx.result(false, 'Session is not recording');
      return;
    }
    await recording.capture.halt();
    const { silence } = recording;
    if (silence && session.playback === silence) {
      await silence.stop().catch((err: unknown) => {
        session.log.warn({ err }, 'silence stream of the recording not stopped');
      });
    }
    let done;
    try {
      done = await recordings.complete(session);
    } catch (err) {
      await ctx.result(false, describe(err));
      return;
    }
    await ctx.result(true);
    if (done) await recordings.publishCompleted(session, done);
  },
};
