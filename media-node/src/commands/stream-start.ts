import type { StreamRequest } from '../media-stream/types.js';
import type { SessionCommand } from './types.js';

/**
 * stream/start: a media stream of the call to the application's WebSocket (media-stream/). The
 * node connects to `url` first (signed upgrade, `connected`), then has FreeSWITCH's module
 * stream the call to this node, which relays it. Deferred: stream.started and command.result
 * true once both sockets are open; otherwise stream.failed and command.result false with the
 * same reason. Its operation_id is the stream's id.
 */
export const streamStart: SessionCommand<'stream/start'> = {
  name: 'stream/start',
  esl: 'api uuid_setvar <uuid> STREAM_MESSAGE_DEFLATE true (STREAM_HEART_BEAT 0, STREAM_SUPPRESS_LOG true); api uuid_audio_stream <uuid> start ws://127.0.0.1:<RECORDING_PORT>/media/<stream id> <mono|stereo> 8k',
  confirmedBy:
    "the module's connection to /media/<stream id>; -ERR, CUSTOM mod_audio_stream::error or no connection within 500 ms is a failure",
  async start(ctx) {
    const { session, message } = ctx;
    const { args } = message;
    const request: StreamRequest = {
      streamId: message.operation_id,
      commandUid: message.command_uid,
      url: args.url,
      track: args.track,
      bidirectional: args.bidirectional,
      customParameters: args.custom_parameters ?? {},
    };
    return session.node.streams.start(session, request, {
      started: (event) => ctx.result(true, undefined, [event]),
      failed: (reason) => ctx.result(false, reason),
    });
  },
};
