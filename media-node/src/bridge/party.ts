import {
  eventArgs,
  lua,
  recordUnbridge,
  type EventPayload,
  type Logger,
  type UnbridgeReason,
} from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import { killOutcome } from '../conference/bridge-leg.js';
import type { Channel } from '../session/channel.js';

/**
 * What a bridge party uses of its session (a Session is one): it cannot name Session, which
 * holds the party.
 */
export interface PartySession {
  readonly id: string;
  readonly appId: string;
  readonly callerId: string;
  readonly ended: boolean;
  readonly metadata: Record<string, unknown> | undefined;
  readonly log: Logger;
  readonly node: NodeContext;
  readonly channel: Channel;
  bridge: BridgeParty | undefined;
  enqueue(task: () => Promise<unknown>): void;
}

/**
 * What the party's call is bridged to in FreeSWITCH: the peer's own channel (both on this
 * FreeSWITCH), or this node's end of the SIP leg to the peer's node.
 */
export type PartyLink =
  | { readonly kind: 'local'; readonly peer: Channel }
  | { readonly kind: 'sip'; readonly leg: Channel };

type Phase = 'pending' | 'confirmed' | 'over';

/** Whether a CHANNEL_BRIDGE or CHANNEL_UNBRIDGE is about the channel `uuid`. */
function names(event: FsEvent, uuid: string): boolean {
  return (
    event.uuid === uuid ||
    event.header('Bridge-A-Unique-ID') === uuid ||
    event.header('Bridge-B-Unique-ID') === uuid
  );
}

/** Takes a call out of whatever bridge it is in: it parks, and so does its peer (uuid_park). */
export async function separate(channel: Channel): Promise<string> {
  return channel.api(`uuid_park ${channel.uuid}`);
}

/**
 * One session's part in a bridge (or a transfer), from the command that made it to its
 * call.unbridged. FreeSWITCH reports a bridge on its originator only (CHANNEL_BRIDGE and
 * CHANNEL_UNBRIDGE with Bridge-A/B-Unique-ID), which may be the peer's channel, so the party
 * listens to its own channel and to the one it is linked to, and takes the first event that
 * names it. Its CHANNEL_BRIDGE publishes its call.bridged (bridgeConfirmed-2.lua); its
 * CHANNEL_UNBRIDGE or its own hangup publishes its call.unbridged (bridgeEnded-3.lua, which
 * decides the reason). Each is queued on the session, so the party's events keep FreeSWITCH's
 * order among the session's, its call.unbridged before its call.hangup.
 *
 * A party linked over SIP hangs its leg up only once its own session has ended (`dropLeg`, from
 * the teardown after call.hangup): when the peer's node sees the leg go, Redis already says
 * this session ended, so the peer's reason is peer_hangup, not error.
 */
export class BridgeParty {
  private phase: Phase = 'pending';
  /** bridgeConfirmed is running: an abandon now waits for what it finds. */
  private confirming = false;
  private abandonAfterConfirm = false;
  private link: PartyLink | undefined;
  private bridgedAt: number | undefined;
  private settleConfirmed!: (confirmed: boolean) => void;
  private settleEnded!: () => void;
  /** True once the party's call.bridged is out; false if the bridge ended or failed first. */
  readonly confirmed = new Promise<boolean>((resolve) => (this.settleConfirmed = resolve));
  /** Resolves once the party has left the bridge (or the bridge never came to be). */
  readonly ended = new Promise<void>((resolve) => (this.settleEnded = resolve));

  constructor(
    readonly session: PartySession,
    /** The other party's session id (a transfer's new leg, or the transferring session). */
    readonly peerId: string,
    /** The command_uid of the bridge or transfer, for call.bridged. */
    readonly uid: string,
    /** `confirmed`: a bridge taken up again after a restart, its call.bridged long out. */
    options: { readonly confirmed?: boolean } = {},
  ) {
    session.bridge = this;
    session.channel.on('event', this.onEvent);
    if (options.confirmed) {
      this.phase = 'confirmed';
      this.bridgedAt = Date.now();
      this.settleConfirmed(true);
    }
  }

  /** Confirmed by FreeSWITCH and not over: a bridge the party is in now. */
  get bridged(): boolean {
    return this.phase === 'confirmed';
  }

  /** The SIP leg this party is bridged through, if it is bridged to another node. */
  get leg(): Channel | undefined {
    return this.link?.kind === 'sip' ? this.link.leg : undefined;
  }

  /** What FreeSWITCH bridges the party's call to; its events may name the party. */
  linkTo(link: PartyLink): void {
    this.link = link;
    const other = link.kind === 'local' ? link.peer : link.leg;
    other.on('event', this.onEvent);
  }

  /**
   * The party leaves the bridge: its call.unbridged, once. `selfEnded`: its own call hung up;
   * otherwise the reason comes from Redis's state and from whether the peer's channel, on this
   * FreeSWITCH, has gone.
   */
  async end(selfEnded: boolean): Promise<UnbridgeReason | 'cleared' | undefined> {
    if (this.phase === 'over') return undefined;
    const wasConfirmed = this.phase === 'confirmed';
    this.over(selfEnded);
    const { session } = this;
    const link = this.link;
    try {
      const reason = await recordUnbridge(session.node, {
        sessionId: session.id,
        peerId: this.peerId,
        appId: session.appId,
        metadata: session.metadata,
        durationMs: this.bridgedAt === undefined ? 0 : Date.now() - this.bridgedAt,
        selfEnded,
        peerGone: link?.kind === 'local' && !link.peer.alive,
      });
      session.log.info({ peer: this.peerId, reason, confirmed: wasConfirmed }, 'left the bridge');
      return reason;
    } finally {
      this.settleEnded();
      // Its peer left over SIP: the leg has nothing left to carry.
      if (!selfEnded) this.dropLeg();
    }
  }

  /**
   * The bridge never came to be (refused, failed, or the transfer's leg not answered): the
   * command clears both sides in Redis (clearRefusedBridge); no event. Nothing once confirmed.
   */
  abandon(): void {
    if (this.phase !== 'pending') return;
    // A call.bridged on its way out stands: the bridge then ends as any other, with its event.
    if (this.confirming) {
      this.abandonAfterConfirm = true;
      return;
    }
    this.over(false);
    this.settleEnded();
    this.dropLeg();
  }

  /** Hangs the SIP leg up, if there is one still up; FreeSWITCH parks the party's call. */
  dropLeg(): void {
    const leg = this.leg;
    if (!leg?.alive) return;
    const { log } = this.session;
    leg.api(`uuid_kill ${leg.uuid} NORMAL_CLEARING`).then(
      (reply) => {
        if (killOutcome(reply) === 'failed') log.warn({ reply, leg: leg.uuid }, 'leg not hung up');
      },
      (err: unknown) => log.warn({ err, leg: leg.uuid }, 'leg not hung up'),
    );
  }

  private over(selfEnded: boolean): void {
    this.phase = 'over';
    this.settleConfirmed(false);
    const { session } = this;
    session.channel.off('event', this.onEvent);
    const link = this.link;
    if (link) (link.kind === 'local' ? link.peer : link.leg).off('event', this.onEvent);
    // A party that ends with its call keeps its place until the teardown drops the leg.
    if (!selfEnded && session.bridge === this) session.bridge = undefined;
  }

  private readonly onEvent = (event: FsEvent): void => {
    const uuid = this.session.channel.uuid;
    switch (event.name) {
      case 'CHANNEL_BRIDGE':
        if (this.phase === 'pending' && names(event, uuid))
          this.session.enqueue(() => this.confirm());
        return;
      case 'CHANNEL_UNBRIDGE':
        if (names(event, uuid)) this.session.enqueue(() => this.end(false));
        return;
      case 'CHANNEL_HANGUP':
        if (event.uuid === uuid) this.session.enqueue(() => this.end(true));
        return;
    }
  };

  private async confirm(): Promise<void> {
    if (this.phase !== 'pending') return;
    const { session } = this;
    const payload: EventPayload<'call.bridged'> = {
      event: 'call.bridged',
      session_uuid: session.id,
      peer_session_uuid: this.peerId,
      command_uid: this.uid,
    };
    this.confirming = true;
    let published: boolean;
    try {
      published =
        Number(
          await session.node.scripts.run(
            lua.bridgeConfirmed(
              {
                session: session.node.keys.session(session.id),
                events: session.node.keys.events(),
              },
              { peer: this.peerId, event: eventArgs(session.appId, payload, session.metadata) },
            ),
          ),
        ) === 1;
    } finally {
      this.confirming = false;
    }
    if (this.phase !== 'pending') return;
    if (!published) {
      this.abandonAfterConfirm = false;
      // Redis no longer has this bridge (given up, or cleared by the sweeper for a peer whose
      // node died): FreeSWITCH must not keep it either.
      session.log.warn({ peer: this.peerId }, 'bridged in FreeSWITCH after the bridge was over');
      this.abandon();
      await separate(session.channel);
      return;
    }
    this.phase = 'confirmed';
    this.bridgedAt = Date.now();
    this.settleConfirmed(true);
    if (this.abandonAfterConfirm)
      session.log.warn({ peer: this.peerId }, 'bridged after its command gave up');
  }
}
