import { randomUUID } from 'node:crypto';
import {
  encodeCommand,
  COMMAND_FIELD,
  type Logger,
  type MemberCommandMessage,
} from '@voicegw/shared';
import { peerNode } from '../cluster/sip-address.js';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import { nodeLegArgs, originateJob } from '../esl/originate.js';
import { Channel } from '../session/channel.js';

/** The called user a host node takes as a bridge leg into room <room id>. */
export const BRIDGE_USER_PREFIX = 'voicegw-conf-';
/** X- headers of the leg's INVITE: which session and which leg it is (sip_h_ variables). */
export const SESSION_HEADER = 'X-Voicegw-Session';
export const LEG_HEADER = 'X-Voicegw-Leg';

export type KillOutcome = 'killed' | 'gone' | 'failed';

/** uuid_kill's reply: `+OK`, or `-ERR No such channel!` once FreeSWITCH has no such channel. */
export function killOutcome(reply: string): KillOutcome {
  if (reply.startsWith('+OK')) return 'killed';
  return /^-ERR No such channel/.test(reply) ? 'gone' : 'failed';
}

/** What a bridge leg uses of the member's session (a Session is one). */
export interface BridgedSession {
  readonly id: string;
  readonly callerId: string;
  readonly log: Logger;
  /** The call the leg is bridged to. */
  readonly channel: Channel;
  readonly node: NodeContext;
}

/** What a bridge leg uses of its membership (a Membership is one). */
export interface BridgedMember {
  readonly session: BridgedSession;
  readonly roomId: string;
  /** The leg is gone (or the call is): a joined member has left the room. */
  bridgeGone(cause?: string): void;
}

/** Why a bridge could not be set up, as command.result's error. */
export class BridgeError extends Error {}

/**
 * The session side of a cross-node conference member: a leg from this node's FreeSWITCH to the
 * room's host FreeSWITCH (CONFERENCE_BRIDGE_TEMPLATE, the host's FS_SIP_ADDRESS from its
 * heartbeat), bridged to the session's channel with `uuid_bridge`. The host joins the leg to
 * the room muted and relays what its FreeSWITCH reports about the member. `park_after_bridge`
 * returns the call to park when the leg goes; the call hanging up takes the leg down with it.
 */
export class BridgeLeg {
  readonly uuid: string;
  readonly channel: Channel;
  private closed = false;
  /** FreeSWITCH told of the leg: its CHANNEL_HANGUP_COMPLETE will come and detach it. */
  private seen = false;

  constructor(
    private readonly membership: BridgedMember,
    readonly hostPrefix: string,
    uuid: string = randomUUID(),
  ) {
    const { node } = membership.session;
    this.uuid = uuid;
    this.channel = new Channel(uuid, node.esl, node.router);
    this.channel.attach();
    this.channel.on('event', this.onEvent);
  }

  /** A leg found bridged to the call after a restart of this node (FreeSWITCH's bridge_to). */
  static adopt(membership: BridgedMember, hostPrefix: string, uuid: string): BridgeLeg {
    return new BridgeLeg(membership, hostPrefix, uuid);
  }

  /** Dials the host, then bridges the call to the leg; throws BridgeError by `deadline`. */
  async connect(deadline: number): Promise<void> {
    const { session } = this.membership;
    const { node } = session;
    const host = await peerNode(node, this.hostPrefix);
    if (!host.alive) throw new BridgeError('the room host node is not available');
    if (!host.sipAddress)
      throw new BridgeError('the room host node announces no SIP address (FS_SIP_ADDRESS)');
    const target = node.config.CONFERENCE_BRIDGE_TEMPLATE.replaceAll(
      '{room}',
      this.membership.roomId,
    ).replaceAll('{host}', host.sipAddress);
    const args = nodeLegArgs(
      {
        uuid: this.uuid,
        target,
        callerId: session.callerId,
        headers: { [SESSION_HEADER]: session.id, [LEG_HEADER]: this.uuid },
      },
      deadline,
    );
    let result: string;
    try {
      result = await originateJob(node.esl, node.router, args, deadline);
    } catch (err) {
      throw new BridgeError(err instanceof Error ? err.message : String(err));
    }
    if (!result.startsWith('+OK')) {
      throw new BridgeError(
        `the room host did not take the bridge leg: ${result.replace(/^-ERR\s*/, '')}`,
      );
    }
    const { channel } = session;
    if (!channel.answered) await this.api(`uuid_answer ${channel.uuid}`);
    await this.api(`uuid_setvar ${channel.uuid} park_after_bridge true`);
    // uuid_bridge answers before the channels move; the call's CHANNEL_EXECUTE uuid_bridge says
    // it is bridged (a playback sent before would be cut off by the move).
    const bridged = new Promise<boolean>((resolve) =>
      channel.expect(
        (e) => e.name === 'CHANNEL_EXECUTE' && e.header('Application') === 'uuid_bridge',
        Math.max(0, deadline - Date.now()),
        (e) => resolve(e !== undefined),
      ),
    );
    await this.api(`uuid_bridge ${channel.uuid} ${this.uuid}`);
    if (!(await bridged)) throw new BridgeError('the call was not bridged to the leg in time');
  }

  /** Asks the host node to mute or unmute the leg's member (its FreeSWITCH has the room). */
  async forward(command: 'mute' | 'unmute', memberId: string): Promise<void> {
    const { session } = this.membership;
    const { node } = session;
    const message: MemberCommandMessage = {
      kind: 'member',
      command,
      room_id: this.membership.roomId,
      session_id: session.id,
      member_id: memberId,
      issued_at: Date.now(),
    };
    await node.redis.xadd(
      node.keys.commandStream(this.hostPrefix),
      '*',
      COMMAND_FIELD,
      encodeCommand(message),
    );
  }

  /**
   * Leave: the leg hangs up; the call goes back to park and the host drops the member. `gone`
   * when FreeSWITCH no longer had the leg (the far side hung it up first).
   */
  async hangup(): Promise<KillOutcome> {
    if (!this.channel.alive) return 'gone';
    const reply = await this.membership.session.channel.api(
      `uuid_kill ${this.uuid} NORMAL_CLEARING`,
    );
    const outcome = killOutcome(reply);
    if (outcome === 'failed') throw new BridgeError(`uuid_kill: ${reply.trim()}`);
    return outcome;
  }

  /** The membership is over: the leg must not stay in the host's room. */
  close(): void {
    this.closed = true;
    if (this.channel.alive) {
      const { log } = this.membership.session;
      this.hangup().then(
        (outcome) => {
          // Normal when the host or the far side ended the leg first: not worth a warning.
          if (outcome === 'gone') log.debug({ leg: this.uuid }, 'bridge leg already gone');
        },
        (err: unknown) => log.warn({ err, leg: this.uuid }, 'bridge leg not hung up'),
      );
    }
    if (!this.seen) this.channel.finish();
  }

  private async api(command: string): Promise<void> {
    const reply = await this.membership.session.channel.api(command);
    if (!reply.startsWith('+OK'))
      throw new BridgeError(`${command.split(' ')[0]}: ${reply.trim()}`);
  }

  private readonly onEvent = (event: FsEvent): void => {
    this.seen = true;
    if (event.name === 'CHANNEL_HANGUP' && !this.closed)
      this.membership.bridgeGone(event.header('Hangup-Cause'));
    if (event.name === 'CHANNEL_HANGUP_COMPLETE') this.channel.finish();
  };
}
