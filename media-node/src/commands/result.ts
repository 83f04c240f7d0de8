import { COMMAND_GROUP, eventArgs, lua, type EventPayload } from '@voicegw/shared';
import type { NodeContext } from '../context.js';

/**
 * Publishes a session command's command.result, after `before` (the events it reports, such as
 * answer's call.answered) in the same step, unless the command was answered already: a sweeper
 * answers as lost the commands of a node it took for dead, which a node cut off from Redis past
 * its heartbeat's TTL may still be running. answerCommand-2.lua appends the events and
 * acknowledges the command's stream entry only while the entry is still pending (a sweeper
 * acknowledges what it answers). True when this call published them.
 */
export async function publishResult(
  node: NodeContext,
  entryId: string,
  appId: string,
  payload: EventPayload<'command.result'>,
  metadata?: Record<string, unknown>,
  before: readonly EventPayload[] = [],
): Promise<boolean> {
  const events = [...before, payload].flatMap((event) => eventArgs(appId, event, metadata));
  const published =
    Number(
      await node.scripts.run(
        lua.answerCommand(
          { commandStream: node.keys.commandStream(node.prefix), events: node.keys.events() },
          { group: COMMAND_GROUP, entryId, events },
        ),
      ),
    ) === 1;
  if (!published) {
    node.log.warn(
      { session_uuid: payload.session_uuid, command_uid: payload.command_uid, entry: entryId },
      'command.result not published: the command was answered already (node taken for dead)',
    );
  }
  return published;
}
