import {
  background,
  COMMAND_FIELD,
  encodeCommand,
  isSessionId,
  parseRoomId,
  parseSessionId,
  type MemberCommandMessage,
} from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { FsEvent } from '../esl/event.js';
import type { ChannelEventSink } from '../esl/router.js';
import { BRIDGE_USER_PREFIX, LEG_HEADER, SESSION_HEADER } from './bridge-leg.js';
import { MAINTENANCE } from './membership.js';

/** What the host relays to the session's node: the member's life in the room. */
const RELAYED = new Set(['add-member', 'mute-member', 'unmute-member', 'del-member']);
/** The room is not here (SIP 404), the call is not a joining member (603). */
const NO_ROOM = 'UNALLOCATED_NUMBER';
const NOT_A_MEMBER = 'CALL_REJECTED';

/** One bridge leg in a room hosted here: its events come to it by Unique-ID. */
class HostLeg implements ChannelEventSink {
  /** Relays and refusals in the order FreeSWITCH reported them. */
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: BridgeHost,
    readonly uuid: string,
    readonly roomId: string,
    readonly sessionId: string,
    /** The session node's leg uuid, echoed in relays so stale ones are told apart. */
    readonly peerLeg: string,
  ) {}

  queue(task: () => Promise<unknown>): void {
    this.chain = this.chain.then(task).catch((err: unknown) => this.host.warn(err, this));
  }

  onEvent(event: FsEvent): void {
    if (event.name === 'CHANNEL_HANGUP_COMPLETE') return this.host.forget(this);
    if (event.name === 'CUSTOM' && event.header('Event-Subclass') === MAINTENANCE) {
      this.host.relay(this, event);
    }
  }
}

/**
 * The host side of cross-node conferences. A call to `voicegw-conf-<room id>` is a bridge leg
 * from another node (not an app call: no call.new): it is accepted when the room is hosted here
 * and the session it names (X-Voicegw-Session) is joining that room, and joined muted with an
 * inline transfer, so that it hangs up when its conference ends (kicked, room deleted). What
 * FreeSWITCH reports about its member is relayed to the session's node, which publishes the
 * member's events; mute/unmute come back from that node as member commands on our stream.
 */
export class BridgeHost {
  private readonly legs = new Map<string, HostLeg>();
  /** Legs being adopted: their events wait for the lookup, in order. */
  private readonly adopting = new Map<string, Promise<HostLeg | undefined>>();

  constructor(private readonly node: NodeContext) {
    // After a restart of this node its legs are unknown: their conference events find them.
    node.router.onCustom(MAINTENANCE, (event) => {
      if (event.uuid && !this.legs.has(event.uuid) && isBridgeLeg(event, true))
        background(this.adopt(event), this.node.log, 'adopting a bridge leg');
    });
  }

  /**
   * Takes an event of a channel nobody owns if it is a bridge leg's; false otherwise. Its
   * CHANNEL_PARK (the dialplan parked it) is where it is accepted; its other events before that
   * (CHANNEL_EXECUTE park) are not an app's business either.
   */
  claim(event: FsEvent): boolean {
    const uuid = event.uuid;
    if (!uuid || !isBridgeLeg(event)) return false;
    if (event.name === 'CHANNEL_PARK' && !this.legs.has(uuid)) this.accept(event, uuid);
    return true;
  }

  /** mute/unmute of a bridge leg's member, asked by the member's session node. */
  async execute(message: MemberCommandMessage): Promise<void> {
    if (message.command === 'event') return;
    if (parseRoomId(message.room_id)?.prefix !== this.node.prefix) return;
    const reply = await this.node.esl.api(
      `conference ${message.room_id} ${message.command} ${message.member_id}`,
    );
    if (!reply.startsWith('+OK'))
      this.node.log.info({ reply: reply.trim(), room_id: message.room_id }, 'member command');
  }

  relay(leg: HostLeg, event: FsEvent): void {
    const action = event.header('Action') ?? '';
    const memberId = event.header('Member-ID');
    if (!RELAYED.has(action) || !memberId || event.header('Conference-Name') !== leg.roomId) return;
    const owner = parseSessionId(leg.sessionId)?.prefix;
    if (!owner) return;
    const message: MemberCommandMessage = {
      kind: 'member',
      command: 'event',
      room_id: leg.roomId,
      session_id: leg.sessionId,
      member_id: memberId,
      action,
      speak: event.header('Speak') !== 'false',
      leg: leg.peerLeg,
      issued_at: Date.now(),
    };
    const { redis, keys } = this.node;
    leg.queue(() =>
      redis.xadd(keys.commandStream(owner), '*', COMMAND_FIELD, encodeCommand(message)),
    );
  }

  forget(leg: HostLeg): void {
    if (this.legs.get(leg.uuid) !== leg) return;
    this.legs.delete(leg.uuid);
    this.node.router.detach(leg.uuid, leg);
  }

  warn(err: unknown, leg: HostLeg): void {
    this.node.log.warn({ err, leg: leg.uuid, room_id: leg.roomId }, 'bridge leg');
  }

  private accept(event: FsEvent, uuid: string): void {
    const leg = this.track(event, uuid);
    leg.queue(async () => {
      const refusal = await this.check(leg);
      if (refusal) return this.refuse(leg, refusal);
      const { roomId } = leg;
      const reply = await this.node.esl.api(
        `uuid_transfer ${uuid} conference:${roomId}@default+flags{mute} inline`,
      );
      if (!reply.startsWith('+OK')) return this.refuse(leg, NO_ROOM);
      this.node.log.info({ room_id: roomId, session_uuid: leg.sessionId }, 'bridge leg joined');
    });
  }

  /** Why this leg may not join, or undefined when it may. */
  private async check(leg: HostLeg): Promise<string | undefined> {
    if (parseRoomId(leg.roomId)?.prefix !== this.node.prefix) return NO_ROOM;
    if (!isSessionId(leg.sessionId)) return NOT_A_MEMBER;
    const { redis, keys } = this.node;
    const [room, session] = await Promise.all([
      redis.exists(keys.room(leg.roomId)),
      redis.hmget(keys.session(leg.sessionId), 'conf_room', 'conf_state'),
    ]);
    if (room !== 1) return NO_ROOM;
    const [confRoom, confState] = session;
    if (confRoom !== leg.roomId || (confState !== 'joining' && confState !== 'joined'))
      return NOT_A_MEMBER;
    return undefined;
  }

  private async refuse(leg: HostLeg, cause: string): Promise<void> {
    this.node.log.info({ room_id: leg.roomId, cause }, 'bridge leg refused');
    await this.node.esl.api(`uuid_kill ${leg.uuid} ${cause}`);
  }

  /** A leg in a room hosted here that this process did not accept (it restarted since). */
  private async adopt(event: FsEvent): Promise<void> {
    const uuid = event.uuid ?? '';
    let lookup = this.adopting.get(uuid);
    if (!lookup) {
      lookup = this.lookUp(event, uuid).finally(() => this.adopting.delete(uuid));
      this.adopting.set(uuid, lookup);
    }
    (await lookup)?.onEvent(event);
  }

  /** The leg's session and peer leg, from the X- headers of its INVITE. */
  private async lookUp(event: FsEvent, uuid: string): Promise<HostLeg | undefined> {
    const variable = async (name: string): Promise<string> => {
      const value = (await this.node.esl.api(`uuid_getvar ${uuid} ${name}`)).trim();
      return value === '_undef_' || value.startsWith('-ERR') ? '' : value;
    };
    const [sessionId, peerLeg] = await Promise.all([
      variable(`sip_h_${SESSION_HEADER}`),
      variable(`sip_h_${LEG_HEADER}`),
    ]);
    if (!sessionId) return undefined;
    return this.legs.get(uuid) ?? this.track(event, uuid, sessionId, peerLeg);
  }

  private track(event: FsEvent, uuid: string, sessionId?: string, peerLeg?: string): HostLeg {
    const leg = new HostLeg(
      this,
      uuid,
      roomOf(event),
      sessionId ?? event.variable(`sip_h_${SESSION_HEADER}`) ?? '',
      peerLeg ?? event.variable(`sip_h_${LEG_HEADER}`) ?? '',
    );
    this.legs.set(uuid, leg);
    this.node.router.attach(uuid, leg);
    return leg;
  }
}

/**
 * Whether a channel's event may be a bridge leg's: an inbound call to voicegw-conf-<room>, or,
 * once a FreeSWITCH transfer gave it a new caller profile, to its inline conference (only bridge
 * legs join rooms that way; adopt() confirms with the leg's variables).
 */
function isBridgeLeg(event: FsEvent, transferred = false): boolean {
  const destination = event.header('Caller-Destination-Number') ?? '';
  return (
    event.header('Call-Direction') === 'inbound' &&
    (destination.startsWith(BRIDGE_USER_PREFIX) ||
      (transferred && destination.startsWith('conference:')))
  );
}

/** The room a leg's event is about. */
function roomOf(event: FsEvent): string {
  const room = event.header('Conference-Name');
  if (room) return room;
  return (event.header('Caller-Destination-Number') ?? '').slice(BRIDGE_USER_PREFIX.length);
}
