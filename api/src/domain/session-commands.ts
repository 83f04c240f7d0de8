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
  ScriptCode,
  type SessionCommandArgs,
  type SessionCommandMessage,
  type SessionCommandMessageArgs,
  type SessionCommandName,
} from '@voicegw/shared';
import { GatewayError } from '../errors/catalogue.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { CommandReply, DeferredReply } from './command-replies.js';
import { commandCheck } from './command-checks.js';
import { commandFingerprint } from './command-fingerprint.js';
import {
  bridgePeer,
  noPeer,
  REFUSED_WHILE_BRIDGED,
  transferLeg,
  unbridgePeer,
  type ConnectRequest,
  type PeerSlots,
  type TransferLeg,
} from './connect-commands.js';
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
 * Script runs of one unbridge at most: each after a fresh read of the session's bridge peer,
 * should a bridge have come or gone between the read and the run (BRIDGE_PEER_CHANGED).
 */
const UNBRIDGE_READS = 3;

/** A command's other session (bridge, unbridge), or a transfer's new leg. */
interface Peer {
  readonly slots: PeerSlots;
  readonly leg?: TransferLeg;
}

/**
 * Accepts session commands, each in one Redis script run shared with the other commands of the
 * same event-loop turn (sessionCommands-n.lua through a ScriptBatcher): rate limits, ownership,
 * node liveness, idempotency, conference rules, cooldown, and the append to the owning node's
 * command stream. The 202 never waits for FreeSWITCH.
 */
export class SessionCommands {
  private readonly batcher: ScriptBatcher<'sessionCommands'>;
  /** Every command but the three that connect calls: made once, off the hot path. */
  private readonly withoutPeer: Peer;

  constructor(private readonly app: FastifyInstance) {
    this.batcher = new ScriptBatcher(app.scripts, {
      script: 'sessionCommands',
      maxCalls: MAX_COMMANDS_PER_RUN,
    });
    this.withoutPeer = { slots: noPeer(app.keys) };
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
    const connect: ConnectRequest<C> = {
      redis: app.redis,
      keys: app.keys,
      appId,
      sessionId,
      prefix: parsed.prefix,
      command,
      body,
    };
    let peer = await this.peerOf(connect);
    const message: SessionCommandMessage<C> = {
      kind: 'session',
      command,
      session_id: sessionId,
      app_id: appId,
      operation_id: operationId,
      command_uid: commandUid,
      // The body's arguments, and what the api adds: a transfer's new leg.
      args: (peer.leg
        ? { ...args, peer_session_uuid: peer.leg.legId }
        : args) as SessionCommandMessageArgs<C>,
      issued_at: Date.now(),
    };
    const deferred: DeferredReply = {
      operation_id: operationId,
      status: 'in_progress',
      timeout_ms: DEFERRED_TIMEOUT_MS,
    };
    const accepted = peer.leg ? peer.leg.reply(deferred) : deferred;
    const roomId = commandRoomId(command, body);
    const cooldown = COOLDOWNS[command];
    const { keys } = app;
    let windows = countedFirst ? COUNTED_WINDOWS(keys.unused()) : app.rateLimiter.windows(request);
    // A command_uid the api made up cannot be repeated: nothing is claimed or stored for it.
    const claimTtlMs = givenUid === undefined ? 0 : app.config.COMMAND_UID_TTL_SEC * 1000;

    for (let reads = 1; ; reads++) {
      const { keys: windowKeys, args: limits } = windows;
      const { keys: peerKeys, args: peerArgs } = peer.slots;
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
            peer: peerKeys.peer,
            peerHeartbeat: peerKeys.peerHeartbeat,
            callerIds: peerKeys.callerIds,
            liveSessions: peerKeys.liveSessions,
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
            refusedWhileBridged: REFUSED_WHILE_BRIDGED.has(command) ? 1 : 0,
            peerId: peerArgs.peerId,
            peerFields: peerArgs.peerFields,
          },
        ),
      );
      hopTrace.mark(operationId, 'api.appended');

      if (code >= 0) {
        // The script answers a body only when it is not this request's own deferred 202.
        const answer = value === null ? accepted : (JSON.parse(String(value)) as CommandReply);
        return { status: answer.status === 'already_joined' ? 200 : 202, body: answer };
      }
      if (code !== ScriptCode.BRIDGE_PEER_CHANGED || reads >= UNBRIDGE_READS) {
        throw scriptError('sessionCommands', [code, value]);
      }
      // An unbridge that met a bridge made or ended since its read: read again. The run
      // counted the request's rate windows already.
      windows = COUNTED_WINDOWS(keys.unused());
      peer = await this.peerOf(connect);
    }
  }

  /**
   * The other session of a bridge (an unbridge's as its session names it now), or a transfer's
   * new leg; none for the other commands.
   */
  private peerOf<C extends SessionCommandName>(request: ConnectRequest<C>): Peer | Promise<Peer> {
    if (isCommand(request, 'bridge')) return { slots: bridgePeer(request) };
    if (isCommand(request, 'unbridge')) return unbridgePeer(request).then((slots) => ({ slots }));
    if (isCommand(request, 'transfer')) {
      const leg = transferLeg(request);
      return { slots: leg.slots, leg };
    }
    return this.withoutPeer;
  }
}

const isCommand = <N extends SessionCommandName>(
  request: ConnectRequest<SessionCommandName>,
  name: N,
): request is ConnectRequest<N> => request.command === name;
