import { describe, type SessionCommand } from './types.js';

/**
 * record/stop: FreeSWITCH stops the audio stream, the recording's silence stream stops (unless a
 * later playback replaced it), the receiver finalises the WAV once the stream has closed (or
 * after a short bound), and then command.result and recording.completed {recording_url,
 * duration, command_uid of the record/start} are published, so the URL serves the whole file
 * from the moment the event fires. Without a recording: success false and no event.
 */
export const recordStop: SessionCommand<'record/stop'> = {
  name: 'record/stop',
  esl: 'api uuid_audio_stream <uuid> stop; api uuid_break (the silence stream)',
  confirmedBy:
    'the uuid_audio_stream reply; the receiver has the last frame when the socket closes',
  async start(ctx) {
    const { session } = ctx;
    const { recordings } = session.node;
    const recording = recordings.current(session);
    if (!recording) {
      await ctx.result(false, 'Session is not recording');
      return;
    }
    const { channel } = session;
    try {
      const reply = await channel.api(`uuid_audio_stream ${channel.uuid} stop`);
      // -ERR: the stream had already ended (FreeSWITCH dropped it); the file is still finalised.
      if (!reply.startsWith('+OK')) session.log.warn({ reply }, 'uuid_audio_stream stop refused');
    } catch (err) {
      session.log.warn({ err: describe(err) }, 'uuid_audio_stream stop failed');
    }
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
