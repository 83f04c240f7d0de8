import { randomUUID } from 'node:crypto';
import {
  parseSessionId,
  sessionFields,
  sessionId as newSessionId,
  transferTimeoutMs,
  type RedisKeys,
  type SessionCommandArgs,
  type SessionCommandName,
} from '@voicegw/shared';
import type { Redis } from 'ioredis';
import { GatewayError } from '../errors/catalogue.js';
import type { DeferredReply, TransferReply } from './command-replies.js';

// What bridge, unbridge and transfer add to a session command's script run: the other session
// of the bridge (docs/decisions/connecting-calls.md).

/**
 * The commands a bridge excludes: what would play into the call or move it while the bridge is
 * its audio. sessionCommands-n.lua refuses them (409 `bridged`) while `bridge_state` is set.
 */
export const REFUSED_WHILE_BRIDGED: ReadonlySet<SessionCommandName> = new Set([
  'playback/start',
  'playback/silence',
  'play_and_get_digits',
  'conference/join',
]);

/** The script slots of a bridge's other session; unused keys and '' for other commands. */
export interface PeerSlots {
  readonly keys: {
    readonly peer: string;
    readonly peerHeartbeat: string;
    readonly callerIds: string;
    readonly liveSessions: string;
  };
  readonly args: { readonly peerId: string; readonly peerFields: string };
}

export const noPeer = (keys: RedisKeys): PeerSlots => {
  const unused = keys.unused();
  return {
    keys: { peer: unused, peerHeartbeat: unused, callerIds: unused, liveSessions: unused },
    args: { peerId: '', peerFields: '' },
  };
};

/** What the connect commands need to know of the request. */
export interface ConnectRequest<C extends SessionCommandName> {
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly appId: string;
  readonly sessionId: string;
  /** The commanded session's node, which owns a transfer's new leg. */
  readonly prefix: string;
  readonly command: C;
  readonly body: SessionCommandArgs<C>;
}

/**
 * A bridge's other session: the body's `session_uuid`, checked to be another session (400
 * otherwise); the script checks everything else about it.
 */
export function bridgePeer({ keys, body, sessionId }: ConnectRequest<'bridge'>): PeerSlots {
  const peer = body.session_uuid;
  if (peer === sessionId) throw new GatewayError('BRIDGE_TO_ITSELF');
  // The schema's pattern guarantees a session id.
  const prefix = parseSessionId(peer)?.prefix ?? '';
  return {
    keys: {
      ...noPeer(keys).keys,
      peer: keys.session(peer),
      peerHeartbeat: keys.nodeHeartbeat(prefix),
    },
    args: { peerId: peer, peerFields: '' },
  };
}

/**
 * An unbridge's other session, as the session's hash names it now. The script compares it with
 * what it finds (BRIDGE_PEER_CHANGED when a bridge came or went in between: read again); a
 * session in no bridge leaves the slot unused, and the script answers why.
 */
export async function unbridgePeer({
  redis,
  keys,
  sessionId,
}: ConnectRequest<'unbridge'>): Promise<PeerSlots> {
  const peer = await redis.hget(keys.session(sessionId), 'bridge_peer');
  if (!peer) return noPeer(keys);
  return {
    keys: { ...noPeer(keys).keys, peer: keys.session(peer) },
    args: { peerId: peer, peerFields: '' },
  };
}

/** A transfer's new leg: the session the script creates, its message arguments and its 202. */
export interface TransferLeg {
  readonly slots: PeerSlots;
  readonly legId: string;
  readonly reply: (accepted: DeferredReply) => TransferReply;
}

/**
 * A transfer's new leg, a session of the same app on the commanded session's node (the bridge
 * is then local to one FreeSWITCH), laid out as dial lays out its session (sessionFields), with
 * `parent_session_uuid`. The script checks `from` against the allow-list and the node's
 * capacity, and creates it with the acceptance.
 */
export function transferLeg({
  keys,
  appId,
  sessionId,
  prefix,
  body,
}: ConnectRequest<'transfer'>): TransferLeg {
  // The uuid part becomes FreeSWITCH's origination_uuid, so events route back to the leg.
  const legId = newSessionId(prefix, randomUUID());
  const now = new Date();
  const fields = sessionFields({
    app_id: appId,
    node: prefix,
    direction: 'outbound',
    caller_id: body.from,
    did: body.to,
    created_at: now.getTime(),
    dial_status: 'dialing',
    dial_started_at: now.toISOString(),
    parent_session_uuid: sessionId,
    ...(body.metadata ? { metadata: body.metadata } : {}),
  });
  return {
    slots: {
      keys: {
        ...noPeer(keys).keys,
        peer: keys.session(legId),
        callerIds: keys.appCids(appId),
        liveSessions: keys.appSessions(appId, 'live', 'outbound'),
      },
      args: { peerId: legId, peerFields: JSON.stringify(fields) },
    },
    legId,
    reply: (accepted) => ({
      ...accepted,
      // Its result comes when the leg is bridged or has failed: the ring time, then a bridge.
      timeout_ms: transferTimeoutMs(body.timeout_sec),
      peer_session_uuid: legId,
    }),
  };
}
