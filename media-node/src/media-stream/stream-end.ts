import { eventArgs, lua, type EventPayload, type SessionCommandMessage } from '@voicegw/shared';
import type { NodeContext } from '../context.js';

/** The one event that ends a media stream. */
export type StreamEnd = EventPayload<'stream.stopped'> | EventPayload<'stream.failed'>;

/**
 * Publishes a stream's stream.stopped or stream.failed and frees its session for another stream
 * (the `stream` field the api set, if it still names this one), in one step: streamEnded-2.lua.
 */
export async function publishStreamEnd(
  node: Pick<NodeContext, 'scripts' | 'keys'>,
  appId: string,
  payload: StreamEnd,
  metadata?: Record<string, unknown>,
): Promise<void> {
  await node.scripts.run(
    lua.streamEnded(
      { session: node.keys.session(payload.session_uuid), events: node.keys.events() },
      { streamId: payload.stream_id, event: eventArgs(appId, payload, metadata), orphaned: '0' },
    ),
  );
}

/**
 * The stream.failed of a stream/start answered without being run (expired, or its session gone),
 * which goes out before its command.result like any other; undefined for other commands.
 */
export function unstartedStream(
  message: SessionCommandMessage,
  reason: string,
): EventPayload<'stream.failed'> | undefined {
  if (!isStreamStart(message)) return undefined;
  return {
    event: 'stream.failed',
    session_uuid: message.session_id,
    stream_id: message.operation_id,
    command_uid: message.command_uid,
    url: message.args.url,
    reason,
  };
}

const isStreamStart = (
  message: SessionCommandMessage,
): message is SessionCommandMessage<'stream/start'> => message.command === 'stream/start';
