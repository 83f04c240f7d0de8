import { randomUUID } from 'node:crypto';
import {
  encodeCommand,
  GatewayError,
  newOperationId,
  parseSessionId,
  type ErrorCode,
  type SessionCommandArgs,
  type SessionCommandMessage,
  type SessionCommandName,
} from '@voicegw/shared';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { rateLimited } from '../plugins/rate-limit.js';
import { COOLDOWNS } from './cooldowns.js';

/** Deferred commands are confirmed by FreeSWITCH or fail after this long (command.result). */
export const DEFERRED_TIMEOUT_MS = 2000;

export interface CommandOutcome {
  readonly status: 200 | 202;
  readonly body: Record<string, unknown>;
}

/** Negative results of sessionCommand-9.lua, turned into catalogue errors in this one place. */
const SCRIPT_ERRORS: Record<number, ErrorCode> = {
  [-2]: 'SESSION_NOT_FOUND',
  [-3]: 'SESSION_FORBIDDEN',
  [-4]: 'COMMAND_RATE_LIMITED',
  [-5]: 'ROOM_NOT_FOUND',
  [-6]: 'ROOM_FORBIDDEN',
  [-7]: 'IN_DIFFERENT_ROOM',
  [-8]: 'NOT_IN_CONFERENCE',
  [-9]: 'STILL_JOINING',
  [-10]: 'ALREADY_MUTED',
  [-11]: 'ALREADY_UNMUTED',
  [-12]: 'STILL_LEAVING',
};

/**
 * Accepts one session command in a single Redis round trip (sessionCommand-9.lua): rate limits,
 * ownership, node liveness, idempotency, conference rules, cooldown, and the append to the
 * owning node's command stream. The 202 never waits for FreeSWITCH.
 */
export async function submitSessionCommand<C extends SessionCommandName>(
  app: FastifyInstance,
  request: FastifyRequest,
  sessionId: string,
  command: C,
  body: SessionCommandArgs<C>,
): Promise<CommandOutcome> {
  const parsed = parseSessionId(sessionId);
  if (!parsed) throw new GatewayError('SESSION_NOT_FOUND');
  if (command === 'record/start' && !app.config.RECORDING_SERVICE_URL) {
    throw new GatewayError('RECORDING_UNAVAILABLE');
  }

  const appId = request.app.app_id;
  const { command_uid: givenUid, ...args } = body;
  const commandUid = givenUid ?? randomUUID();
  const operationId = newOperationId();
  const message: SessionCommandMessage<C> = {
    kind: 'session',
    command,
    session_id: sessionId,
    app_id: appId,
    operation_id: operationId,
    command_uid: commandUid,
    args,
    issued_at: Date.now(),
  };
  const accepted = {
    operation_id: operationId,
    status: 'in_progress',
    timeout_ms: DEFERRED_TIMEOUT_MS,
  };
  const roomId =
    command === 'conference/join' ? (args as unknown as { room_id: string }).room_id : '';
  const cooldown = COOLDOWNS[command];
  const { keys } = app;
  const windows = app.rateLimiter.windows(request);

  const result = (await app.scripts.run(
    'sessionCommand',
    [
      ...windows.keys,
      keys.session(sessionId),
      keys.nodeHeartbeat(parsed.prefix),
      keys.commandClaim(appId, sessionId, commandUid),
      keys.cooldown('sess', sessionId, cooldown?.name ?? 'none'),
      keys.commandStream(parsed.prefix),
      keys.room(roomId),
      keys.roomMembers(roomId),
    ],
    [
      appId,
      ...windows.args,
      command,
      cooldown?.ms ?? 0,
      givenUid === undefined ? 0 : app.config.COMMAND_UID_TTL_SEC * 1000,
      JSON.stringify(accepted),
      encodeCommand(message),
      roomId,
      sessionId,
    ],
  )) as [number, string | number | undefined];

  const [code, value] = result;
  if (code >= 0) {
    const answer = JSON.parse(String(value)) as Record<string, unknown>;
    return { status: answer.status === 'already_joined' ? 200 : 202, body: answer };
  }
  if (code === -1) throw rateLimited('RATE_LIMITED', Number(value));
  const error = SCRIPT_ERRORS[code];
  if (!error) throw new Error(`sessionCommand returned unknown code ${code}`);
  throw new GatewayError(error);
}
