import type { EventName, EventPayload, HangupCause, Logger } from '@voicegw/shared';
import type { NodeContext } from '../context.js';
import type { Channel } from './channel.js';
import type { Membership } from '../conference/membership.js';
import type { BridgeParty } from '../bridge/party.js';
import type { Playback } from './playback.js';

export interface SessionInit {
  readonly id: string;
  readonly appId: string;
  readonly direction: 'inbound' | 'outbound';
  /** Inbound: the caller; outbound: the dial's `from`. */
  readonly callerId: string;
  /** Inbound: the called number; outbound: the dial's `to`. */
  readonly did: string;
  readonly metadata?: Record<string, unknown> | undefined;
  /** Outbound only: the dial's max_duration_sec. */
  readonly maxDurationSec?: number | undefined;
  /** A transfer's new leg: the session that transferred, named in the leg's call events. */
  readonly parentSessionId?: string | undefined;
}

/**
 * One call this node owns (jambonz style): its channel, who owns it, and a serial task queue.
 * Everything that changes the session or publishes its events (command starts, FreeSWITCH
 * events, teardown) runs through `serial`, so its events leave in the order things happened.
 */
export class Session {
  readonly id: string;
  readonly appId: string;
  readonly direction: 'inbound' | 'outbound';
  readonly callerId: string;
  readonly did: string;
  readonly metadata: Record<string, unknown> | undefined;
  readonly maxDurationSec: number | undefined;
  readonly parentSessionId: string | undefined;
  readonly log: Logger;
  /** Answer commands waiting for their confirmation: they, not the channel, report the answer. */
  answerCommands = 0;
  /** Dial progress already reported (each event fires once). */
  readonly reported = { ringing: false, earlyMedia: false };
  ended = false;
  /** The playback (or silence stream) that is current: preparing, playing, or being stopped. */
  playback: Playback | undefined;
  /** The conference room the session is in (or joining), as FreeSWITCH reports it. */
  conference: Membership | undefined;
  /** Its part in a bridge (or a transfer), from the command that made it to its call.unbridged. */
  bridge: BridgeParty | undefined;
  /** Epoch ms this node took the session on (created, dialed or adopted). */
  readonly startedAt = Date.now();
  private tail: Promise<unknown> = Promise.resolve();
  private resolveEnded!: (cause: HangupCause) => void;
  /** Resolves with the hangup cause once its call.hangup is out (or was, elsewhere). */
  readonly whenEnded = new Promise<HangupCause>((resolve) => (this.resolveEnded = resolve));

  constructor(
    readonly node: NodeContext,
    readonly channel: Channel,
    init: SessionInit,
  ) {
    this.id = init.id;
    this.appId = init.appId;
    this.direction = init.direction;
    this.callerId = init.callerId;
    this.did = init.did;
    this.metadata = init.metadata;
    this.maxDurationSec = init.maxDurationSec;
    this.parentSessionId = init.parentSessionId;
    this.log = node.log.child({ session_uuid: init.id, app_id: init.appId });
  }

  /** Runs `task` after every task queued before it; a failing task does not block the queue. */
  serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.tail.then(task);
    this.tail = run.catch((err: unknown) => this.log.error({ err }, 'session task failed'));
    return run;
  }

  /**
   * Queues `task` for work nobody awaits (an ESL event, a timer): its failure is logged by the
   * queue and never left unhandled, which would end the process; `done` runs once it settled.
   */
  enqueue(task: () => Promise<unknown>, done?: () => void): void {
    void this.serial(task).then(
      () => done?.(),
      () => done?.(),
    );
  }

  /** The teardown is done: `whenEnded` resolves (teardown.ts). */
  markEnded(cause: HangupCause): void {
    this.resolveEnded(cause);
  }

  /** What a transfer's new leg adds to its call events: the session it was placed for. */
  get parent(): { readonly parent_session_uuid?: string } {
    return this.parentSessionId ? { parent_session_uuid: this.parentSessionId } : {};
  }

  /** Publishes one of this session's events, with the dial metadata when there is some. */
  async publish<N extends EventName>(payload: EventPayload<N>): Promise<void> {
    await this.node.events.publish(this.appId, payload, this.metadata);
  }
}
