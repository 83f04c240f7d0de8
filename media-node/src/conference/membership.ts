import { lua, type EventName, type EventPayload } from '@voicegw/shared';
import { FsEvent } from '../esl/event.js';
import type { BridgedSession, BridgeLeg } from './bridge-leg.js';

export const MAINTENANCE = 'conference::maintenance';

/** What a membership uses of its session, its bridge leg's needs included (a Session is one). */
export interface MemberSession extends BridgedSession {
  /** The session's membership, which a membership that closes clears if it is still that. */
  conference: Membership | undefined;
  /** Queues the member's changes and events in the session's order. */
  enqueue(task: () => Promise<unknown>): void;
  publish<N extends EventName>(payload: EventPayload<N>): Promise<void>;
}

/** Session-side changes conferenceMember-2.lua applies. */
export type MemberChange =
  'joined' | 'left' | 'muted' | 'unmuted' | 'join_failed' | 'restore_joined';

/** Applies a membership change to the session hash and the room's member set. */
export async function recordMembership(
  session: MemberSession,
  roomId: string,
  change: MemberChange,
  memberId = '',
): Promise<void> {
  const { keys, scripts } = session.node;
  await scripts.run(
    lua.conferenceMember(
      { session: keys.session(session.id), roomMembers: keys.roomMembers(roomId) },
      { change, roomId, sessionId: session.id, memberId },
    ),
  );
}

/** A conference::maintenance event about a member, as FreeSWITCH shapes it. */
export function maintenanceEvent(
  roomId: string,
  action: string,
  memberId?: string,
  speak?: boolean,
): FsEvent {
  return new FsEvent({
    'Event-Name': 'CUSTOM',
    'Event-Subclass': MAINTENANCE,
    'Conference-Name': roomId,
    Action: action,
    ...(memberId === undefined ? {} : { 'Member-ID': memberId }),
    ...(speak === undefined ? {} : { Speak: String(speak) }),
  });
}

type Waiter = (event: FsEvent | undefined) => void;
type MemberEvent =
  | 'conference.member.joined'
  | 'conference.member.left'
  | 'conference.member.muted'
  | 'conference.member.unmuted';

/**
 * A session's membership of one conference room, from the conference application's start to
 * its del-member. FreeSWITCH tells through CUSTOM conference::maintenance events carrying the
 * member's Unique-ID: add-member (with the Member-ID), mute-member, unmute-member, del-member.
 * Each confirmed change goes to Redis first, then to the app as conference.member.* events.
 *
 * A member of a room hosted by another node is in that node's conference through a bridge leg
 * (`bridge`): the host relays its FreeSWITCH's events about the leg's member, and they are
 * applied here exactly as local ones; the leg going (leave, room deleted, this call hanging up)
 * is the member leaving.
 */
export class Membership {
  memberId: string | undefined;
  muted = true;
  /** Set while FreeSWITCH confirms a kick we asked for. */
  leaving = false;
  /** The bridge leg to the host node, for a room hosted elsewhere. */
  bridge: BridgeLeg | undefined;
  /** Why the membership ended before the member joined, for the join's command.result. */
  failure: string | undefined;
  private closed = false;
  private resolveClosed!: () => void;
  /** Resolves when the membership is over. */
  readonly ended = new Promise<void>((resolve) => (this.resolveClosed = resolve));
  /** Relayed events held until the bridge is up (a member is joined once it can hear). */
  private held: FsEvent[] | undefined;
  private readonly waiters = new Map<string, Waiter[]>();

  constructor(
    readonly session: MemberSession,
    readonly roomId: string,
    /** Application-UUID of our `conference` execute (undefined for an adopted membership). */
    readonly applicationUuid?: string,
  ) {
    session.channel.on('event', this.onEvent);
  }

  get over(): boolean {
    return this.closed;
  }

  /** Calls `settle` with the next event of this member with that Action, or undefined. */
  next(action: string, timeoutMs: number, settle: Waiter): void {
    let done = false;
    const finish: Waiter = (event) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      const list = this.waiters.get(action) ?? [];
      this.waiters.set(
        action,
        list.filter((w) => w !== finish),
      );
      settle(event);
    };
    const timer = setTimeout(() => finish(undefined), Math.max(0, timeoutMs));
    this.waiters.set(action, [...(this.waiters.get(action) ?? []), finish]);
  }

  /** Holds relayed events until `release()` (the bridge is not up yet). */
  hold(): void {
    this.held ??= [];
  }

  release(): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const event of held) this.apply(event);
  }

  /** Ends the membership before it was confirmed, for this reason. */
  fail(reason: string): void {
    this.failure ??= reason;
    this.close();
  }

  /** Stops listening (the membership is over). Waiters settle with undefined. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.session.channel.off('event', this.onEvent);
    for (const list of this.waiters.values()) for (const waiter of [...list]) waiter(undefined);
    this.waiters.clear();
    if (this.session.conference === this) this.session.conference = undefined;
    this.bridge?.close();
    this.resolveClosed();
  }

  /** The bridge leg is gone (or the call is): a joined member has left the room. */
  bridgeGone(cause?: string): void {
    if (this.closed) return;
    if (this.memberId === undefined) {
      return this.fail(`the bridge leg to the room host ended${cause ? ` (${cause})` : ''}`);
    }
    this.held = undefined;
    this.apply(maintenanceEvent(this.roomId, 'del-member', this.memberId));
  }

  /** A conference::maintenance event about this member (from this FreeSWITCH or relayed). */
  apply(event: FsEvent): void {
    if (this.closed || event.header('Conference-Name') !== this.roomId) return;
    if (this.held) {
      this.held.push(event);
      return;
    }
    const action = event.header('Action') ?? '';
    switch (action) {
      case 'add-member':
        if (this.memberId !== undefined) return;
        this.memberId = event.header('Member-ID');
        this.muted = event.header('Speak') === 'false';
        this.report('joined', 'conference.member.joined');
        break;
      case 'mute-member':
        this.muted = true;
        this.report('muted', 'conference.member.muted');
        break;
      case 'unmute-member':
        this.muted = false;
        this.report('unmuted', 'conference.member.unmuted');
        break;
      case 'del-member':
        this.report('left', 'conference.member.left');
        this.settle(action, event);
        this.close();
        return;
    }
    this.settle(action, event);
  }

  private readonly onEvent = (event: FsEvent): void => {
    if (
      event.name === 'CHANNEL_EXECUTE_COMPLETE' &&
      this.applicationUuid !== undefined &&
      event.header('Application-UUID') === this.applicationUuid &&
      this.memberId === undefined
    ) {
      // The conference application ended without ever adding the member: refused.
      this.fail('FreeSWITCH refused the conference');
      return;
    }
    // The call hanging up ends its bridge, and so the membership, before its call.hangup.
    if (event.name === 'CHANNEL_HANGUP' && this.bridge) return this.bridgeGone();
    if (event.name !== 'CUSTOM' || event.header('Event-Subclass') !== MAINTENANCE) return;
    this.apply(event);
  };

  private settle(action: string, event: FsEvent | undefined): void {
    for (const waiter of [...(this.waiters.get(action) ?? [])]) waiter(event);
  }

  /** Redis, then the event, in the session's order. */
  private report(change: MemberChange, name: MemberEvent): void {
    const { session } = this;
    const payload: EventPayload<MemberEvent> = {
      event: name,
      session_uuid: session.id,
      room_id: this.roomId,
      ...(this.memberId ? { member_id: this.memberId } : {}),
      muted: this.muted,
    };
    session.enqueue(async () => {
      await recordMembership(session, this.roomId, change, this.memberId);
      await session.publish(payload);
    });
  }
}
