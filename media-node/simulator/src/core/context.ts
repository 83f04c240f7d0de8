// The seams between the simulator's parts, as types only, so that channels, applications, the
// conference module and the API commands depend on interfaces rather than on each other.
import type { Logger } from '@voicegw/shared';
import type { FsEvent, Header } from '../esl/event.js';
import type { Channel } from './channel.js';
import type { Player } from '../media/player.js';
import type { MediaResolver } from '../media/audio-source.js';
import type { NumberBook } from './numbers.js';
import type { ConferenceRegistry } from '../conference/conference.js';
import type { Trunk } from '../trunk/trunk.js';

export interface Identity {
  readonly coreUuid: string;
  readonly hostname: string;
  readonly ipv4: string;
  readonly ipv6: string;
  readonly startedAt: number;
}

/** A receiver of fired events: an event-socket listener. */
export interface EventSink {
  /** Whether an event of this name would reach it now (before its header filters). */
  hears(name: string): boolean;
  deliver(event: FsEvent): void;
}

/** Where an event claims to come from (file, function, line), as FreeSWITCH stamps it. */
export type CallingSite = readonly [file: string, func: string, line: number];

export interface SimContext {
  readonly log: Logger;
  readonly identity: Identity;
  readonly channels: Map<string, Channel>;
  readonly numbers: NumberBook;
  readonly media: MediaResolver;
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
  findApp(name: string): AppImpl | undefined;
  /** Counts sessions for `status` and HEARTBEAT. */
  noteSession(): void;
}

/** A running application on a channel: how the channel controls it while it runs. */
export interface AppHandle {
  /** Resolves with the Application-Response when the application ends. */
  readonly done: Promise<string>;
  /** The channel hung up: end now, firing the application's own closing events. */
  hangup(): void;
  /** uuid_break: stop the media now; `true` if there was media to stop. */
  breakMedia?(): boolean;
  /** A DTMF digit reached the channel while this application was on top. */
  dtmf?(digit: string, samples: number): void;
  /** What `show channels` lists as the application, when it is not the one started. */
  label?(): string;
  /** Another application started on top of this one (no event-lock): freeze media. */
  suspend?(): void;
  resume?(): void;
  /** Whether queued messages may run nested now (media apps: only while their file plays). */
  acceptsMessages?(): boolean;
  /** The file handle uuid_fileman acts on, when a file is playing. */
  fileHandle?(): Player | undefined;
}

export type AppImpl = (channel: Channel, arg: string, ctx: SimContext) => AppHandle;

export type { FsEvent, Header };
