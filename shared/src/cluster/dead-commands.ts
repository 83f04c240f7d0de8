import { COMMAND_GROUP, failedResult, NODE_LOST } from '../commands/failure.js';
import { COMMAND_FIELD, decodeCommand, type SessionCommandMessage } from '../commands/stream.js';
import { eventArgs } from '../events/publisher.js';
import { SCRIPT_BUILDERS as lua } from '../redis/lua/index.js';
import { ScriptCode } from '../redis/script-codes.js';
import { compareStreamIds, toRecord } from '../redis/stream-ids.js';
import type { ClusterContext } from './context.js';
import { endOrphan } from './orphan.js';

/** The consumer name under which a sweeper takes a dead node's unread commands. */
const SWEEPER_CONSUMER = 'orphan-sweeper';
/** Entries per script call: keeps each call (and the time Redis is busy with it) short. */
const CHUNK = 200;

type Entry = [id: string, fields: string[]];

/**
 * Answers the commands a dead node (heartbeat gone) accepted but never answered: those still
 * unread in its stream and those its consumer read but never acknowledged. Each gets one
 * command.result (success false, NODE_LOST), before the sweeper's call.hangup of its session.
 * Exactly once rests on failDeadCommands-3.lua, which acknowledges and publishes in one step and
 * does nothing once the node beats again. A transfer's new leg that the node never placed ends
 * after the transfer's result (unplacedLegs). Resolves with how many entries were answered.
 */
export async function failDeadNodeCommands(ctx: ClusterContext, prefix: string): Promise<number> {
  const stream = ctx.keys.commandStream(prefix);
  const open = await openEntries(ctx, stream);
  const metadata = await sessionMetadata(ctx, open);
  let answered = 0;
  for (let i = 0; i < open.length; i += CHUNK) {
    const entries: string[] = [];
    for (const [id, fields] of open.slice(i, i + CHUNK))
      entries.push(id, ...resultArgs(fields, metadata));
    const done = Number(
      await ctx.scripts.run(
        lua.failDeadCommands(
          {
            commandStream: stream,
            heartbeat: ctx.keys.nodeHeartbeat(prefix),
            events: ctx.keys.events(),
          },
          { group: COMMAND_GROUP, consumer: SWEEPER_CONSUMER, entries },
        ),
      ),
    );
    if (done === ScriptCode.NODE_ALIVE) return answered; // the node is back: its own consumer answers the rest
    answered += done;
  }
  for (const leg of await unplacedLegs(ctx, prefix, open)) await endOrphan(ctx, leg, prefix);
  return answered;
}

/**
 * The new legs of the entries' transfers that their node never placed: the api created each
 * leg's session with the transfer, and the node adds it to its sessions before it originates.
 * Nobody else would end them, as the transfer is answered now and never runs; a leg the node
 * did place is one of its sessions, ended with the others once ORPHAN_TIMEOUT_MS have passed.
 */
async function unplacedLegs(ctx: ClusterContext, prefix: string, entries: Entry[]) {
  const legs: string[] = [];
  for (const [, fields] of entries) {
    const message = decode(fields);
    if (message?.kind !== 'session' || message.command !== 'transfer') continue;
    const leg = (message as SessionCommandMessage<'transfer'>).args.peer_session_uuid;
    if (!(await ctx.redis.sismember(ctx.keys.nodeSessions(prefix), leg))) legs.push(leg);
  }
  return legs;
}

/** Entries nobody acknowledged: pending in the group, or beyond what it has delivered. */
async function openEntries(ctx: ClusterContext, stream: string): Promise<Entry[]> {
  const { redis } = ctx;
  if ((await redis.exists(stream)) === 0) return [];
  const groups = (await redis.xinfo('GROUPS', stream)) as unknown[][];
  const group = groups.map(toRecord).find((g) => g.name === COMMAND_GROUP);
  const delivered = group ? String(group['last-delivered-id']) : '0-0';
  const pending = new Set<string>();
  if (group && Number(group.pending) > 0) {
    const rows = (await redis.xpending(stream, COMMAND_GROUP, '-', '+', 100_000)) as [string][];
    for (const [id] of rows) pending.add(id);
  }
  const entries = (await redis.xrange(stream, '-', '+')) as Entry[];
  return entries.filter(([id]) => pending.has(id) || compareStreamIds(id, delivered) > 0);
}

type Metadata = Map<string, Record<string, unknown> | undefined>;

/** The dial metadata of each session the entries are for, as its events carry it. */
async function sessionMetadata(ctx: ClusterContext, entries: Entry[]): Promise<Metadata> {
  const metadata: Metadata = new Map();
  for (const [, fields] of entries) {
    const message = decode(fields);
    if (message?.kind !== 'session' || metadata.has(message.session_id)) continue;
    const raw = await ctx.redis.hget(ctx.keys.session(message.session_id), 'metadata');
    metadata.set(
      message.session_id,
      raw ? (JSON.parse(raw) as Record<string, unknown>) : undefined,
    );
  }
  return metadata;
}

/** The four event stream fields of an entry's failed command.result; '' for no result event. */
function resultArgs(fields: string[], metadata: Metadata): string[] {
  const message = decode(fields);
  // Dials end through their session's call.hangup; room and member commands have no result.
  if (message?.kind !== 'session') return ['', '', '', ''];
  return eventArgs(
    message.app_id,
    failedResult(message, NODE_LOST),
    metadata.get(message.session_id),
  );
}

function decode(fields: string[]): ReturnType<typeof decodeCommand> | undefined {
  try {
    return decodeCommand(fields[fields.indexOf(COMMAND_FIELD) + 1] ?? '');
  } catch {
    return undefined;
  }
}
