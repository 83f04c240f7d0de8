// The simulator's context, as types only: what applications and API commands are given. The
// channels, their executor, the conference rooms and the trunk it names import none of it: each
// declares the little it uses of the switch (ChannelHost, ConferenceHost, InboundHost), so no
// import circle forms (tools/test/import-cycles.test.ts).
import type { Logger } from '@voicegw/shared';
import type { FsEvent, Header } from '../esl/event.js';
import type { Channel } from './channel.js';
import type { CallingSite, Identity } from './event-factory.js';
import type { AppHandle } from './executor.js';
import type { MediaResolver } from '../media/audio-source.js';
import type { CallAudioRegistry } from '../media/call-audio.js';
import type { NumberBook } from './numbers.js';
import type { ConferenceRegistry } from '../conference/conference.js';
import type { Trunk } from '../trunk/trunk.js';

/** A receiver of fired events: an event-socket listener. */
export interface EventSink {
  /** Whether an event of this name would reach it now (before its header filters). */
  hears(name: string): boolean;
  deliver(event: FsEvent): void;
}

export interface SimContext {
  readonly log: Logger;
  readonly identity: Identity;
  readonly channels: Map<string, Channel>;
  readonly numbers: NumberBook;
  readonly media: MediaResolver;
  /** Every call's audio (what it says, what it hears), kept a while after it ends. */
  readonly audio: CallAudioRegistry;
  readonly conferences: ConferenceRegistry;
  /** The SIP trunk to other simulators (originate to sofia/<profile>/<user>@<host>:<port>). */
  readonly trunk: Trunk;
  /** Names of the sofia gateways (sofia/gateway/<name>/… dials them; others: INVALID_GATEWAY). */
  readonly gateways: ReadonlySet<string>;
  /** A new event with the common headers (Core-UUID … Event-Sequence) already in place. */
  createEvent(name: string, site?: CallingSite, subclass?: string): FsEvent;
  fire(event: FsEvent): void;
  /**
   * Fires an event whose headers `addHeaders` appends, if some listener hears its name: a
   * channel's events carry a hundred headers or more, and most go to nobody. Its Event-Sequence
   * number is taken either way.
   */
  fireIfHeard(name: string, addHeaders: (event: FsEvent) => void): void;
  /** Starts application `app` on `channel`, with this context; undefined: no such application. */
  launch(channel: Channel, app: string, arg: string): AppHandle | undefined;
  /** Counts sessions for `status` and HEARTBEAT. */
  noteSession(): void;
}

export type AppImpl = (channel: Channel, arg: string, ctx: SimContext) => AppHandle;

export type { AppHandle, FsEvent, Header };
