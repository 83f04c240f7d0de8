import { addSession, eventArgs, execAll, sessionId, type EventPayload } from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import { Channel, ChannelState } from './channel.js';
import { watchSession } from './lifecycle.js';
import { Session } from './session.js';

/** A new inbound call, from its CHANNEL_PARK or from a resync's `show channels` row. */
export interface InboundCall {
  readonly uuid: string;
  readonly callerId: string;
  /** The called number (Caller-Destination-Number). */
  readonly did: string;
  /** Channel variable `voicegw_app_id`, set by the dialplan when it knows the app. */
  readonly appIdVariable: string | undefined;
  readonly answered: boolean;
}

/** The inbound call a CHANNEL_PARK of a channel nobody owns announces, if it is one. */
export function inboundFromPark(event: FsEvent): InboundCall | undefined {
  const uuid = event.uuid;
  if (event.name !== 'CHANNEL_PARK' || !uuid) return undefined;
  if (event.header('Call-Direction') !== 'inbound') return undefined;
  return {
    uuid,
    callerId: event.header('Caller-Caller-ID-Number') ?? '',
    did: event.header('Caller-Destination-Number') ?? '',
    appIdVariable: event.variable('voicegw_app_id') || undefined,
    answered: event.header('Answer-State') === 'answered',
  };
}

/** Hangup causes of calls we do not take. */
const REJECTED = 'CALL_REJECTED';
const REFUSED = 'SWITCH_CONGESTION';

/**
 * Takes an inbound call: the app comes from `voicegw_app_id`, else from the DID map, else the
 * call is rejected (CALL_REJECTED); while draining or full it is refused (SWITCH_CONGESTION, so
 * the carrier tries elsewhere). The session hash is written, then call.new is published before
 * any command can reach the session. The channel is claimed at once, so its later events wait
 * for the session instead of being lost.
 */
export function acceptInbound(node: NodeContext, call: InboundCall): void {
  if (node.router.owner(call.uuid)) return;
  const channel = new Channel(call.uuid, node.esl, node.router, {
    hold: true,
    state: call.answered ? ChannelState.Answered : ChannelState.New,
  });
  channel.attach();
  void admit(node, call, channel).catch((err: unknown) => {
    node.log.error({ err, uuid: call.uuid }, 'inbound call setup failed');
    void refuse(node, channel, 'NORMAL_TEMPORARY_FAILURE', 'refused');
  });
}

async function admit(node: NodeContext, call: InboundCall, channel: Channel): Promise<void> {
  if (node.draining || node.sessions.size >= node.config.CAPACITY) {
    return refuse(node, channel, REFUSED, 'refused');
  }
  const id = sessionId(node.prefix, call.uuid);
  const { keys } = node;
  const [routed, ended] = await Promise.all([
    call.appIdVariable ? Promise.resolve(null) : node.redis.hget(keys.didRoutes(), call.did),
    // A call this node lost track of and that was already reported over (an orphan).
    node.redis.hexists(keys.session(id), 'ended_at'),
  ]);
  if (ended === 1) return refuse(node, channel, 'NORMAL_CLEARING', 'refused');
  const appId = call.appIdVariable ?? routed ?? undefined;
  if (!appId) {
    node.log.info({ uuid: call.uuid, did: call.did }, 'no app for this DID; call rejected');
    return refuse(node, channel, REJECTED, 'rejected');
  }

  const session = new Session(node, channel, {
    id,
    appId,
    direction: 'inbound',
    callerId: call.callerId,
    did: call.did,
  });
  // Registered before its hash exists, so that no command can find the session missing: the
  // api takes commands for it only once the transaction below wrote its hash and call.new, and
  // whatever arrives meanwhile queues behind that transaction.
  node.sessions.add(session);
  try {
    await session.serial(() => recordInbound(node, session, call, channel.answeredAt));
  } catch (err) {
    node.sessions.remove(session);
    throw err;
  }
  node.metrics.inboundCalls.inc({ outcome: 'accepted' });
  watchSession(session);
  session.log.info({ caller_id: call.callerId, did: call.did }, 'inbound call');
  channel.release();
}

/**
 * The session's hash, its place in the node's and the app's indexes, and its call.new (with
 * call.answered when it was answered before we took it) in one transaction: one round trip, and
 * no session without its events or events without their session.
 */
async function recordInbound(
  node: NodeContext,
  session: Session,
  call: InboundCall,
  answeredAt: number | undefined,
): Promise<void> {
  const { keys } = node;
  const transaction = addSession(node.redis.multi(), keys, session.id, {
    app_id: session.appId,
    node: node.prefix,
    direction: 'inbound',
    caller_id: call.callerId,
    did: call.did,
    ...(answeredAt === undefined ? {} : { answered_at: answeredAt }),
  }).sadd(keys.nodeSessions(node.prefix), session.id);
  const events: EventPayload[] = [
    { event: 'call.new', session_uuid: session.id, caller_id: call.callerId, did: call.did },
  ];
  if (call.answered) events.push({ event: 'call.answered', session_uuid: session.id });
  for (const event of events)
    transaction.xadd(keys.events(), '*', ...eventArgs(session.appId, event));
  await execAll(transaction);
}

async function refuse(
  node: NodeContext,
  channel: Channel,
  cause: string,
  outcome: 'rejected' | 'refused',
): Promise<void> {
  node.metrics.inboundCalls.inc({ outcome });
  channel.finish();
  const reply = await node.esl.api(`uuid_kill ${channel.uuid} ${cause}`).catch((err: unknown) => {
    node.log.warn({ err, uuid: channel.uuid }, 'uuid_kill failed');
    return '';
  });
  if (reply && !reply.startsWith('+OK')) node.log.warn({ reply }, 'uuid_kill refused');
}
