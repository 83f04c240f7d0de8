import { isSessionId } from '@voicegw/shared';
import type { FsEvent } from '../esl/event.js';
import type { NodeWithSessions } from '../session/registry.js';
import type { Session } from '../session/session.js';
import type { Channel } from '../session/channel.js';
import { bridgeChannels } from './connect.js';
import { BRIDGE_USER_PREFIX, CALLER_HEADER, legChannel } from './leg.js';
import { BridgeParty } from './party.js';

/** Not a session of this node (SIP 404); not bridging with the caller's session (603). */
const NO_SESSION = 'UNALLOCATED_NUMBER';
const NOT_BRIDGING = 'CALL_REJECTED';

/**
 * The far side of bridges between nodes. A call to `voicegw-bridge-<session id>` is the leg of
 * another node whose session is being bridged to that session of ours (not an app's call: no
 * call.new). It is accepted only while Redis shows our session `bridging` with the caller's
 * (X-Voicegw-Session): answered, set to park when its session leaves it, and bridged to the
 * session, whose party (BridgeParty) then publishes its events. Otherwise it is refused, which
 * fails the bridge on the dialling side.
 */
export class IncomingBridges {
  private readonly seen = new Set<string>();

  constructor(private readonly node: NodeWithSessions) {}

  /**
   * Takes an event of a channel nobody owns if it is such a leg's; false otherwise. Its
   * CHANNEL_PARK (the dialplan parked it) is where it is accepted.
   */
  claim(event: FsEvent): boolean {
    const uuid = event.uuid;
    if (!uuid || !isBridgeLeg(event)) return false;
    if (event.name === 'CHANNEL_PARK' && !this.seen.has(uuid)) {
      this.seen.add(uuid);
      const leg = legChannel(this.node, uuid);
      leg.once('gone', () => this.seen.delete(uuid));
      this.accept(event, leg);
    }
    return true;
  }

  private accept(event: FsEvent, leg: Channel): void {
    const targetId = (event.header('Caller-Destination-Number') ?? '').slice(
      BRIDGE_USER_PREFIX.length,
    );
    const callerId = event.variable(`sip_h_${CALLER_HEADER}`) ?? '';
    const target = isSessionId(targetId) ? this.node.sessions.get(targetId) : undefined;
    if (!target) {
      void this.refuse(leg, NO_SESSION);
      return;
    }
    target.enqueue(() => this.join(target, callerId, leg));
  }

  /** In the target session's queue: bridges it to the leg if Redis says it is expected. */
  private async join(target: Session, callerId: string, leg: Channel): Promise<void> {
    const { redis, keys } = this.node;
    const [peer, state, uid] = await redis.hmget(
      keys.session(target.id),
      'bridge_peer',
      'bridge_state',
      'bridge_uid',
    );
    if (target.ended || target.bridge || !callerId || peer !== callerId || state !== 'bridging') {
      return this.refuse(leg, NOT_BRIDGING);
    }
    const party = new BridgeParty(target, callerId, uid ?? '');
    party.linkTo({ kind: 'sip', leg });
    this.node.streams.yieldAudio(target, party.ended);
    this.node.bridges.watch(party);
    try {
      const answered = await leg.api(`uuid_answer ${leg.uuid}`);
      if (!answered.startsWith('+OK')) throw new Error(`uuid_answer: ${answered.trim()}`);
      await bridgeChannels(target.channel, leg);
      target.log.info({ peer: callerId, leg: leg.uuid }, 'bridge leg from the peer node taken');
    } catch (err) {
      target.log.warn({ err, peer: callerId }, 'bridge leg from the peer node not bridged');
      party.abandon();
    }
  }

  private async refuse(leg: Channel, cause: string): Promise<void> {
    this.node.log.info({ leg: leg.uuid, cause }, 'bridge leg refused');
    const reply = await leg.api(`uuid_kill ${leg.uuid} ${cause}`).catch((err: unknown) => {
      this.node.log.warn({ err, leg: leg.uuid }, 'bridge leg not refused');
      return '';
    });
    if (reply && !reply.startsWith('+OK')) leg.finish();
  }
}

/** An inbound call to voicegw-bridge-<session id>: another node's leg, never an app's call. */
export function isBridgeLeg(event: FsEvent): boolean {
  return (
    event.header('Call-Direction') === 'inbound' &&
    (event.header('Caller-Destination-Number') ?? '').startsWith(BRIDGE_USER_PREFIX)
  );
}
