import { eventArgs } from '../events/publisher.js';
import type { EventPayload } from '../events/payloads.js';
import { SCRIPT_BUILDERS as lua } from '../redis/lua/index.js';
import type { ClusterContext } from './context.js';

/**
 * The stream.stopped (reason error) of the media stream an orphaned session still names: its
 * node died without a word, and the stream's one end event must precede the call.hangup. What
 * the node counted died with it (duration and frames 0). Published only while the session's
 * `stream` field names it (streamEnded-2.lua), so a node that did end it adds nothing.
 */
export async function endOrphanStream(
  ctx: Pick<ClusterContext, 'keys' | 'scripts'>,
  sessionId: string,
  raw: Record<string, string>,
  appId: string,
  metadata: Record<string, unknown> | undefined,
): Promise<void> {
  if (!raw.stream || raw.ended_at) return;
  const payload: EventPayload<'stream.stopped'> = {
    event: 'stream.stopped',
    session_uuid: sessionId,
    stream_id: raw.stream,
    command_uid: raw.stream_uid ?? '',
    reason: 'error',
    duration_ms: 0,
    frames_sent: 0,
    frames_received: 0,
  };
  await ctx.scripts.run(
    lua.streamEnded(
      { session: ctx.keys.session(sessionId), events: ctx.keys.events() },
      { streamId: raw.stream, event: eventArgs(appId, payload, metadata), orphaned: '1' },
    ),
  );
}
