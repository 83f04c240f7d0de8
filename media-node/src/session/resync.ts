import {
  endOrphan,
  failDeadNodeCommands,
  parseSession,
  parseSessionId,
  sessionId,
  type SessionBridge,
} from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import { adoptBridge } from '../bridge/adopt.js';
import { Membership } from '../conference/membership.js';
import { Channel, ChannelState } from './channel.js';
import { acceptInbound } from './inbound.js';
import type { NodeWithSessions } from './registry.js';
import { watchSession } from './lifecycle.js';
import { Session } from './session.js';
import { countHangup, endSession } from './teardown.js';

/** The columns of a `show channels as json` row that resync reads. */
interface ChannelRow {
  readonly uuid: string;
  readonly direction: string;
  readonly cid_num?: string;
  readonly dest?: string;
  readonly application?: string;
  readonly callstate?: string;
}

/**
 * After every (re)connect: what FreeSWITCH has and what we believe must agree. Channels of our
 * sessions that still exist are kept (or adopted, after a restart of this node); sessions whose
 * channel is gone (FreeSWITCH restarted, or the call ended while we were away) get their
 * call.hangup from us at once, each counted once; parked inbound channels nobody owns (their
 * CHANNEL_PARK fell into the outage) are taken as new calls. `show channels` lags 1–2 s behind
 * FreeSWITCH, so a session missing from it is confirmed with `uuid_exists` before it is dropped.
 */
export async function resync(node: NodeWithSessions, connectedAt: number): Promise<void> {
  const rows = await liveChannels(node);
  const exists = async (uuid: string): Promise<boolean> =>
    rows.has(uuid) || (await node.esl.api(`uuid_exists ${uuid}`)).trim() === 'true';

  let kept = 0;
  // Ids, not a count: a session ended here is still in Redis's set below until its hangup is in.
  const vanished = new Set<string>();
  for (const session of node.sessions.all()) {
    // Sessions begun on this connection are current (a dial's channel may not exist yet); one
    // that ended while we were asking has nothing left to resync.
    if (session.ended) continue;
    if (session.startedAt >= connectedAt || (await exists(session.channel.uuid))) {
      kept++;
      continue;
    }
    if (session.ended) continue;
    vanished.add(session.id);
    await markVanished(node, session.id);
    await endVanished(session);
  }

  let adopted = 0;
  let answeredPrevious = false;
  const bridges: Array<[Session, SessionBridge]> = [];
  const owned = await node.redis.smembers(node.keys.nodeSessions(node.prefix));
  for (const id of owned) {
    const uuid = parseSessionId(id)?.channelUuid;
    if (!uuid || node.sessions.get(id) || vanished.has(id)) continue;
    if (await exists(uuid)) {
      const taken = await adopt(node, id, uuid, rows.get(uuid));
      if (!taken) continue;
      adopted++;
      if (taken.bridge) bridges.push([taken.session, taken.bridge]);
    } else {
      // A session of this node's previous run: nothing here holds it, Redis knows it. What that
      // run left unanswered is answered first, if its heartbeat is gone (else our consumer will).
      if (!answeredPrevious) {
        answeredPrevious = true;
        await failDeadNodeCommands(node, node.prefix);
      }
      vanished.add(id);
      await markVanished(node, id);
      if (await endOrphan(node, id, node.prefix)) countHangup(node, 'failed', true);
    }
  }

  // Once every session is back: a bridge's peer on this node is one of them.
  for (const [session, bridge] of bridges) await adoptBridge(node, session, bridge);

  let taken = 0;
  for (const row of rows.values()) {
    if (node.router.owner(row.uuid) || row.direction !== 'inbound' || row.application !== 'park')
      continue;
    if (node.sessions.get(sessionId(node.prefix, row.uuid))) continue;
    const appIdVariable = (await node.esl.api(`uuid_getvar ${row.uuid} voicegw_app_id`)).trim();
    acceptInbound(node, {
      uuid: row.uuid,
      callerId: row.cid_num ?? '',
      did: row.dest ?? '',
      appIdVariable: appIdVariable && appIdVariable !== '_undef_' ? appIdVariable : undefined,
      answered: row.callstate === 'ACTIVE',
    });
    taken++;
  }
  node.log.info(
    { kept, adopted, vanished: vanished.size, taken },
    'resynchronised with FreeSWITCH',
  );
}

async function liveChannels(node: NodeContext): Promise<Map<string, ChannelRow>> {
  const body = await node.esl.api('show channels as json');
  const parsed = JSON.parse(body) as { rows?: ChannelRow[] };
  return new Map((parsed.rows ?? []).map((row) => [row.uuid, row]));
}

/**
 * The safety net: should our own call.hangup not get through (Redis trouble), the sweeper gives
 * it after ORPHAN_TIMEOUT_MS; if ours did, the sweeper finds the session ended and adds nothing.
 */
async function markVanished(node: NodeContext, id: string): Promise<void> {
  await node.redis.zadd(node.keys.vanishedSessions(), 'NX', Date.now(), id);
  node.log.warn({ session_uuid: id }, 'channel gone while we were away');
}

/**
 * Ends a live session whose channel is gone: commands read from now on find no session, and
 * those waiting on the channel settle (success false) before the call.hangup, which is queued
 * behind them on the session. Synthetic, as the sweeper's: failed, duration 0.
 */
async function endVanished(session: Session): Promise<void> {
  session.node.sessions.remove(session);
  session.channel.finish();
  await session.serial(() => endSession(session, 'failed', 0, 'orphaned'));
}

/** Takes over a live call this node owned before it restarted: the session, and its bridge. */
async function adopt(
  node: NodeWithSessions,
  id: string,
  uuid: string,
  row: ChannelRow | undefined,
): Promise<{ readonly session: Session; readonly bridge: SessionBridge | undefined } | undefined> {
  const raw = await node.redis.hgetall(node.keys.session(id));
  if (!raw.app_id || raw.ended_at) {
    await node.redis.srem(node.keys.nodeSessions(node.prefix), id);
    return undefined;
  }
  const record = parseSession(raw);
  const channel = new Channel(uuid, node.esl, node.router, { state: stateOf(row) });
  const session = new Session(node, channel, {
    id,
    appId: record.app_id,
    direction: record.direction,
    callerId: record.caller_id,
    did: record.did,
    metadata: record.metadata,
    parentSessionId: record.parent_session_uuid,
  });
  session.reported.ringing = record.dial_status !== undefined && record.dial_status !== 'dialing';
  session.reported.earlyMedia =
    record.dial_status === 'early_media' || record.dial_status === 'answered';
  channel.attach();
  node.sessions.add(session);
  watchSession(session);
  if (record.conf_room && record.conf_state !== 'none') {
    const membership = new Membership(session, record.conf_room);
    membership.memberId = record.conf_member_id || undefined;
    membership.muted = record.conf_muted;
    session.conference = membership;
  }
  session.log.info('adopted a live call');
  return { session, bridge: record.bridge };
}

function stateOf(row: ChannelRow | undefined): ChannelState {
  switch (row?.callstate) {
    case 'ACTIVE':
    case 'HELD':
      return ChannelState.Answered;
    case 'EARLY':
      return ChannelState.Early;
    case 'RINGING':
      return ChannelState.Ringing;
    default:
      return ChannelState.New;
  }
}
