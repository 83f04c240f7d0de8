import {
  eventArgs,
  lua,
  ScriptCode,
  sessionFields,
  sessionId,
  type EventPayload,
} from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import { Channel, ChannelState } from './channel.js';
import { watchSession } from './lifecycle.js';
import type { NodeWithSessions } from './registry.js';
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
 * the carrier tries elsewhere). The session, its indexes and call.new are written in one script
 * run before any command can reach the session. The channel is claimed at once, so its later
 * events wait for the session instead of being lost.
 */
export function acceptInbound(node: NodeWithSessions, call: InboundCall): void {
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

async function admit(node: NodeWithSessions, call: InboundCall, channel: Channel): Promise<void> {
  if (node.draining || node.sessions.size >= node.config.CAPACITY) {
    return refuse(node, channel, REFUSED, 'refused');
  }
  const id = sessionId(node.prefix, call.uuid);
  // The dialplan's app, else the DID map as this node last read it (checked by the script),
  // else the map itself.
  let appId = call.appIdVariable ?? node.didRoutes.get(call.did) ?? (await lookUpRoute(node, call));
  for (let attempt = 1; ; attempt++) {
    if (!appId) {
      node.log.info({ uuid: call.uuid, did: call.did }, 'no app for this DID; call rejected');
      return refuse(node, channel, REJECTED, 'rejected');
    }
    const outcome = await take(
      node,
      call,
      channel,
      new Session(node, channel, {
        id,
        appId,
        direction: 'inbound',
        callerId: call.callerId,
        did: call.did,
      }),
    );
    if (outcome === 'admitted') break;
    // A call this node lost track of and that was already reported over (an orphan).
    if (outcome === 'ended') return refuse(node, channel, 'NORMAL_CLEARING', 'refused');
    // The DID moved to another app (or to none) since this node last read the map.
    node.didRoutes.learn(call.did, outcome.routedTo || undefined);
    if (attempt === 2) throw new Error(`the route of DID ${call.did} changed during admission`);
    appId = outcome.routedTo;
  }
  node.metrics.inboundCalls.inc({ outcome: 'accepted' });
  channel.release();
}

async function lookUpRoute(node: NodeContext, call: InboundCall): Promise<string | undefined> {
  const appId = (await node.redis.hget(node.keys.didRoutes(), call.did)) ?? undefined;
  node.didRoutes.learn(call.did, appId);
  return appId;
}

type Admission = 'admitted' | 'ended' | { readonly routedTo: string };

/**
 * Takes the call for `session`'s app, or leaves nothing behind. The session is registered
 * before its hash exists, so that no command can find it missing: the api takes commands for
 * it only once the script below wrote its hash and call.new, and whatever arrives meanwhile
 * queues behind the script.
 */
async function take(
  node: NodeWithSessions,
  call: InboundCall,
  channel: Channel,
  session: Session,
): Promise<Admission> {
  node.sessions.add(session);
  let outcome: Admission;
  try {
    outcome = await session.serial(() => recordInbound(node, session, call, channel.answeredAt));
  } catch (err) {
    node.sessions.remove(session);
    throw err;
  }
  if (outcome !== 'admitted') {
    node.sessions.remove(session);
    return outcome;
  }
  watchSession(session);
  session.log.info({ caller_id: call.callerId, did: call.did }, 'inbound call');
  return outcome;
}

/**
 * The session's hash, its place in the node's and the app's indexes, and its call.new (with
 * call.answered when it was answered before we took it), in one script run with the checks
 * that decide whether the call is the app's to take: one round trip, and no session without its
 * events or events without their session. Run once: while Redis is away an inbound call is
 * refused (the carrier tries elsewhere), not held.
 */
async function recordInbound(
  node: NodeContext,
  session: Session,
  call: InboundCall,
  answeredAt: number | undefined,
): Promise<Admission> {
  const { keys } = node;
  const fields = sessionFields({
    app_id: session.appId,
    node: node.prefix,
    direction: 'inbound',
    caller_id: call.callerId,
    did: call.did,
    ...(answeredAt === undefined ? {} : { answered_at: answeredAt }),
  });
  const events: EventPayload[] = [
    { event: 'call.new', session_uuid: session.id, caller_id: call.callerId, did: call.did },
  ];
  if (call.answered) events.push({ event: 'call.answered', session_uuid: session.id });
  const reply = await node.scripts.runOnce(
    lua.admitInbound(
      {
        session: keys.session(session.id),
        didRoutes: keys.didRoutes(),
        liveSessions: keys.appSessions(session.appId, 'live', 'inbound'),
        nodeSessions: keys.nodeSessions(node.prefix),
        events: keys.events(),
      },
      {
        did: call.did,
        appId: session.appId,
        routed: call.appIdVariable === undefined ? '1' : '0',
        createdAt: fields.created_at ?? '',
        sessionId: session.id,
        fieldCount: 2 * Object.keys(fields).length,
        fieldsThenEvents: [
          ...Object.entries(fields).flat(),
          ...events.flatMap((event) => eventArgs(session.appId, event)),
        ],
      },
    ),
  );
  if (reply === 0) return 'admitted';
  if (reply === ScriptCode.SESSION_ENDED) return 'ended';
  if (Array.isArray(reply) && reply[0] === ScriptCode.DID_ROUTE_CHANGED) {
    return { routedTo: String(reply[1] ?? '') };
  }
  throw new Error(`admitInbound answered ${JSON.stringify(reply)}`);
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
