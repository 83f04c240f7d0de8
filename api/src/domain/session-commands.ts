import { randomUUID } from 'node:crypto';
import {
  commandRoomId,
  DEFERRED_TIMEOUT_MS,
  encodeCommand,
  hopTrace,
  lua,
  newOperationId,
  parseSessionId,
  ScriptBatcher,
  type SessionCommandArgs,
  type SessionCommandMessage,
  type SessionCommandName,
} from '@voicegw/shared';
import { GatewayError } from '../errors/catalogue.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CommandReply, DeferredReply } from './command-replies.js';
import { commandCheck } from './command-checks.js';
import { commandFingerprint } from './command-fingerprint.js';
import { COOLDOWNS } from './cooldowns.js';
import { scriptError } from './script-errors.js';

export interface CommandOutcome {
  readonly status: 200 | 202;
  readonly body: CommandReply;
}

/** The rate windows of a request counted before its script run: a negative limit skips them. */
const COUNTED_WINDOWS = (unused: string) =>
  ({
    keys: { ipWindow: unused, appWindow: unused },
    args: { ipLimit: -1, ipWindowMs: 0, appLimit: -1, appWindowMs: 0 },
  }) as const;

/** Commands in one script run at most: ~10 µs each in Redis, so a full run holds it < 1 ms. */
const MAX_COMMANDS_PER_RUN = 64;

/**
 * Accepts session commands, each in one Redis script run shared with the other commands of the
 * same event-loop turn (sessionCommands-n.lua through a ScriptBatcher): rate limits, ownership,
 * node liveness, idempotency, conference rules, cooldown, and the append to the owning node's
 * command stream. The 202 never waits for FreeSWITCH.
 */
export class SessionCommands {
  private readonly batcher: ScriptBatcher<'sessionCommands'>;

  constructor(private readonly app: FastifyInstance) {
    this.batcher = new ScriptBatcher(app.scripts, {
      script: 'sessionCommands',
      maxCalls: MAX_COMMANDS_PER_RUN,
    });
  }

  async submit<C extends SessionCommandName>(
    request: FastifyRequest,
    sessionId: string,
    command: C,
    body: SessionCommandArgs<C>,
  ): Promise<CommandOutcome> {
    const { app } = this;
    const parsed = parseSessionId(sessionId);
    if (!parsed) throw new GatewayError('SESSION_NOT_FOUND');
    const check = commandCheck(command);
    // Counted here rather than in the script run, when the check resolves host names first.
    const countedFirst = check?.resolvesHosts === true;
    if (countedFirst) await app.rateLimiter.authenticated(request);
    await check?.run(body, app.config);

    const appId = request.app.app_id;
    const { command_uid: givenUid, ...args } = body;
    const commandUid = givenUid ?? randomUUID();
    const operationId = newOperationId();
    hopTrace.mark(operationId, 'api.received');
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
    const accepted: DeferredReply = {
      operation_id: operationId,
      status: 'in_progress',
      timeout_ms: DEFERRED_TIMEOUT_MS,
    };
    const roomId = commandRoomId(command, body);
    const cooldown = COOLDOWNS[command];
    const { keys } = app;
    const { keys: windowKeys, args: limits } = countedFirst
      ? COUNTED_WINDOWS(keys.unused())
      : app.rateLimiter.windows(request);
    // A command_uid the api made up cannot be repeated: nothing is claimed or stored for it.
    const claimTtlMs = givenUid === undefined ? 0 : app.config.COMMAND_UID_TTL_SEC * 1000;

    const [code, value] = await this.batcher.call(
      // Named one by one: an object literal that starts with a spread and goes on with more
      // properties is built property by property in V8's runtime, ~6 µs a command here.
      lua.sessionCommands(
        {
          ipWindow: windowKeys.ipWindow,
          appWindow: windowKeys.appWindow,
          session: keys.session(sessionId),
          heartbeat: keys.nodeHeartbeat(parsed.prefix),
          claim: claimTtlMs > 0 ? keys.commandClaim(appId, sessionId, commandUid) : keys.unused(),
          cooldown: cooldown ? keys.cooldown('sess', sessionId, cooldown.name) : keys.unused(),
          commandStream: keys.commandStream(parsed.prefix),
          room: roomId ? keys.room(roomId) : keys.unused(),
          roomMembers: roomId ? keys.roomMembers(roomId) : keys.unused(),
        },
        {
          appId,
          ipLimit: limits.ipLimit,
          ipWindowMs: limits.ipWindowMs,
          appLimit: limits.appLimit,
          appWindowMs: limits.appWindowMs,
          command,
          cooldownMs: cooldown?.ms ?? 0,
          claimTtlMs,
          deferredBody: claimTtlMs > 0 ? JSON.stringify(accepted) : '',
          message: encodeCommand(message),
          roomId,
          sessionId,
          fingerprint: claimTtlMs > 0 ? commandFingerprint(command, args) : '',
        },
      ),
    );
    hopTrace.mark(operationId, 'api.appended');

    if (code >= 0) {
      // The script answers a body only when it is not this request's own deferred 202.
      const answer = value === null ? accepted : (JSON.parse(String(value)) as CommandReply);
      return { status: answer.status === 'already_joined' ? 200 : 202, body: answer };
    }
    throw scriptError('sessionCommands', [code, value]);
  }
}
