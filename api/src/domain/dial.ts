import { randomUUID } from 'node:crypto';
import {
  encodeCommand,
  isSessionId,
  lua,
  sessionFields,
  sessionId,
  type DialArgs,
  type DialCommandMessage,
  type DialStatus,
} from '@voicegw/shared';
import { GatewayError } from '../errors/catalogue.js';
import type { FastifyInstance } from 'fastify';
import { scriptError } from './script-errors.js';

export interface PlacedDial {
  readonly session_uuid: string;
  readonly status: 'dialing';
}

export interface DialState {
  readonly session_uuid: string;
  readonly status: DialStatus;
  readonly started_at: string;
}

/**
 * Originates an outbound call: picks the least-loaded live node that accepts outbound calls,
 * then creates the session and enqueues the originate on that node's stream atomically
 * (placeDial-5.lua). The answer never waits for FreeSWITCH; progress arrives as events.
 */
export async function placeDial(
  app: FastifyInstance,
  appId: string,
  args: DialArgs,
): Promise<PlacedDial> {
  try {
    return await place(app, appId, args);
  } catch (error) {
    if (error instanceof GatewayError) throw error;
    throw new GatewayError('DIAL_FAILED', { cause: error });
  }
}

async function place(app: FastifyInstance, appId: string, args: DialArgs): Promise<PlacedDial> {
  const { keys } = app;
  const node = await app.nodes.leastLoaded({ outbound: true });
  if (!node) {
    // The allow-list is still checked first: a 403 is final, while a 503 invites retries that
    // could never succeed for a caller ID the app may not use.
    const allowed = await app.redis.sismember(keys.appCids(appId), args.from);
    throw new GatewayError(allowed ? 'NO_FS_CAPACITY' : 'CID_NOT_ALLOWED');
  }

  // The uuid part becomes FreeSWITCH's origination_uuid, so events route back to this session.
  const id = sessionId(node.prefix, randomUUID());
  const now = new Date();
  const fields = sessionFields({
    app_id: appId,
    node: node.prefix,
    direction: 'outbound',
    caller_id: args.from,
    did: args.to,
    created_at: now.getTime(),
    dial_status: 'dialing',
    dial_started_at: now.toISOString(),
    ...(args.metadata ? { metadata: args.metadata } : {}),
  });
  const message: DialCommandMessage = {
    kind: 'dial',
    session_id: id,
    app_id: appId,
    args,
    issued_at: now.getTime(),
  };

  const reply = await app.scripts.run(
    lua.placeDial(
      {
        callerIds: keys.appCids(appId),
        heartbeat: keys.nodeHeartbeat(node.prefix),
        session: keys.session(id),
        commandStream: keys.commandStream(node.prefix),
        liveSessions: keys.appSessions(appId, 'live', 'outbound'),
      },
      {
        from: args.from,
        command: encodeCommand(message),
        createdAt: now.getTime(),
        sessionId: id,
        fields: Object.entries(fields).flat(),
      },
    ),
  );
  if (Number(reply) === 0) return { session_uuid: id, status: 'dialing' };
  throw scriptError('placeDial', reply, appId);
}

/** The dial status of one of the app's outbound sessions; 404 for anything else. */
export async function dialState(
  app: FastifyInstance,
  appId: string,
  id: string,
): Promise<DialState> {
  // Another app's dial answers 404 like an unknown one: the lookup reveals nothing.
  const session = isSessionId(id) ? await app.sessions.get(id) : undefined;
  if (
    !session ||
    session.app_id !== appId ||
    session.direction !== 'outbound' ||
    !session.dial_status ||
    !session.dial_started_at
  ) {
    throw new GatewayError('DIAL_NOT_FOUND');
  }
  return { session_uuid: id, status: session.dial_status, started_at: session.dial_started_at };
}
