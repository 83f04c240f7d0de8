// mod_conference rooms: members, flags, floor and the room's file player, each change
// announced with a CUSTOM conference::maintenance event shaped like trace f.
import { randomUUID } from 'node:crypto';
import type { FsEvent, Header } from '../esl/event.js';
import type { Channel } from '../core/channel.js';
import { channelHeaders } from '../core/channel-headers.js';
import type { CallingSite, Identity } from '../core/event-factory.js';
import { TEARDOWN_DELAY_MS } from '../core/timing.js';
import type { MediaResolver } from '../media/audio-source.js';
import { ConferenceFiles } from './files.js';

export const SUBCLASS = 'conference::maintenance';
const ALONE_SOUND = '/usr/local/freeswitch/sounds/en/us/callie/conference/conf-alone.wav';

/** What a room uses of its switch (a SimContext is one): its events, and its files' audio. */
export interface ConferenceHost {
  readonly identity: Pick<Identity, 'ipv4'>;
  readonly media: MediaResolver;
  createEvent(name: string, site?: CallingSite, subclass?: string): FsEvent;
  fire(event: FsEvent): void;
}

export interface Member {
  readonly id: number;
  readonly channel: Channel;
  canSpeak: boolean;
  canHear: boolean;
  volumeIn: number;
  volumeOut: number;
  energy: number;
  readonly files: ConferenceFiles;
  /** Ends the member's conference application (kick, hangup, room destroyed). */
  leave(reason: 'kick' | 'hangup'): void;
}

export class Conference {
  readonly uuid = randomUUID();
  readonly members = new Map<number, Member>();
  readonly files: ConferenceFiles;
  private nextId = 1;
  private floor: Member | undefined;
  readonly createdAt = Date.now();

  constructor(
    readonly name: string,
    readonly profile: string,
    private readonly ctx: ConferenceHost,
    private readonly registry: ConferenceRegistry,
  ) {
    this.files = new ConferenceFiles(ctx.media, 'play-file', (action, before, after) =>
      this.fireRoom(action, after, before),
    );
  }

  get size(): number {
    return this.members.size;
  }

  hasFloor(m: Member): boolean {
    return this.floor === m;
  }

  add(channel: Channel, flags: Set<string>, leave: Member['leave']): Member {
    const first = this.members.size === 0;
    const member: Member = {
      id: this.nextId++,
      channel,
      canSpeak: !flags.has('mute'),
      canHear: !flags.has('deaf'),
      volumeIn: 0,
      volumeOut: 0,
      energy: 100,
      files: new ConferenceFiles(this.ctx.media, 'play-file-member', (action, before, after) =>
        this.fireMember(member, action, after, before),
      ),
      leave,
    };
    this.members.set(member.id, member);
    if (first) this.playAlone();
    this.fireMember(member, 'add-member');
    if (!this.floor) {
      this.floor = member;
      this.fireFloorChange('none', member);
    }
    return member;
  }

  /** The member's application ended: del-member, and the room goes when it is empty. */
  remove(member: Member): void {
    if (!this.members.delete(member.id)) return;
    member.files.stopAll();
    if (this.members.size === 1) this.playAlone();
    if (this.floor === member) {
      this.floor = undefined;
      this.fireFloorChange(String(member.id), undefined);
    }
    this.fireMember(member, 'del-member');
    if (this.members.size === 0) {
      this.files.stopAll();
      setTimeout(() => this.destroy(), TEARDOWN_DELAY_MS);
    }
  }

  /** The default profile's "you are alone" prompt (not installed: the event carries Error). */
  private playAlone(): void {
    this.fireRoom('play-file', [
      ['File', ALONE_SOUND],
      ['Async', 'false'],
      ['Error', 'File could not be played'],
    ]);
  }

  destroy(): void {
    if (this.registry.get(this.name) !== this) return;
    if (this.members.size > 0) return;
    this.registry.delete(this.name);
    this.fireRoom('conference-destroy');
  }

  fireMember(
    member: Member,
    action: string,
    extra: Header[] = [],
    before: Header[] = [],
    flags: Header[] = memberHeaders(member),
  ): void {
    const ev = this.ctx.createEvent('CUSTOM', undefined, SUBCLASS);
    ev.headers.push(
      ...this.roomHeaders(),
      ...before,
      ['Floor', String(this.floor === member)],
      ...channelHeaders(member.channel, false),
      ...flags,
      ['Action', action],
      ...extra,
    );
    this.ctx.fire(ev);
  }

  /**
   * A member event that mod_conference fires a frame later, carrying the member's flags as the
   * command left them: in the recording, `deaf` 1 ms after `mute` does not show in mute-member.
   */
  fireMemberLater(member: Member, action: string, delayMs: number): void {
    const flags = memberHeaders(member);
    setTimeout(() => this.fireMember(member, action, [], [], flags), delayMs);
  }

  fireRoom(action: string, extra: Header[] = [], before: Header[] = []): void {
    const ev = this.ctx.createEvent('CUSTOM', undefined, SUBCLASS);
    ev.headers.push(...this.roomHeaders(), ...before, ['Action', action], ...extra);
    this.ctx.fire(ev);
  }

  private fireFloorChange(oldId: string, member: Member | undefined): void {
    const ev = this.ctx.createEvent('CUSTOM', undefined, SUBCLASS);
    ev.headers.push(...this.roomHeaders(), ['Action', 'floor-change'], ['Old-ID', oldId]);
    if (member) {
      ev.headers.push(
        ['Floor', 'true'],
        ...channelHeaders(member.channel, false),
        ...memberHeaders(member),
        ['New-ID', String(member.id)],
      );
    } else {
      ev.headers.push(['New-ID', 'none']);
    }
    this.ctx.fire(ev);
  }

  private roomHeaders(): Header[] {
    return [
      ['Conference-Name', this.name],
      ['Conference-Domain', this.ctx.identity.ipv4],
      ['Conference-Size', String(this.members.size)],
      ['Conference-Ghosts', '0'],
      ['Conference-Profile-Name', this.profile],
      ['Conference-Unique-ID', this.uuid],
    ];
  }
}

function memberHeaders(m: Member): Header[] {
  return [
    ['Video', 'false'],
    ['Hear', String(m.canHear)],
    ['See', 'true'],
    ['Speak', String(m.canSpeak)],
    ['Talking', 'false'],
    ['Mute-Detect', 'false'],
    ['Hold', 'false'],
    ['Member-ID', String(m.id)],
    ['Member-Type', 'member'],
    ['Member-Ghost', 'false'],
    ['Energy-Level', String(m.energy)],
    ['Current-Energy', '0'],
  ];
}

export class ConferenceRegistry extends Map<string, Conference> {
  constructor(private readonly ctxRef: () => ConferenceHost) {
    super();
  }

  /** Finds or creates a room; a new room fires conference-create. */
  join(name: string, profile: string): Conference {
    let conf = this.get(name);
    if (!conf) {
      conf = new Conference(name, profile, this.ctxRef(), this);
      this.set(name, conf);
      conf.fireRoom('conference-create');
    }
    return conf;
  }
}
