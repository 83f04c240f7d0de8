import type { SessionCommand } from './types.js';

/**
 * stream/stop: the session's media stream ends: `stop` and a close 1000 to the application,
 * FreeSWITCH's module stopped, stream.stopped (reason `stopped`), then command.result true;
 * false when the session has no stream (left) on this node.
 */
export const streamStop: SessionCommand<'stream/stop'> = {
  name: 'stream/stop',
  esl: 'api uuid_audio_stream <uuid> stop',
  confirmedBy: 'the uuid_audio_stream reply (the stream ends whatever it says)',
  async start(ctx) {
    const stopped = await ctx.session.node.streams.stop(ctx.session);
    await ctx.result(stopped, stopped ? undefined : 'Session has no media stream');
  },
};
