import type { FsEvent } from './event.js';

/** Whatever owns a FreeSWITCH channel UUID (one Channel object per UUID). */
export interface ChannelEventSink {
  onEvent(event: FsEvent): void;
}

type Handler = (event: FsEvent) => void;

/**
 * Routes every FreeSWITCH event to the one object that cares: channel events by `Unique-ID` to
 * their channel, BACKGROUND_JOB by `Job-UUID` to whoever started the job, CUSTOM events by
 * `Event-Subclass` (and to the channel of their Unique-ID, if any). Channel events of a UUID
 * nobody owns go to `unknownChannel` (a new inbound call shows up this way).
 */
export class EventRouter {
  private readonly channels = new Map<string, ChannelEventSink>();
  private readonly jobs = new Map<string, Handler>();
  private readonly custom = new Map<string, Set<Handler>>();
  unknownChannel: Handler = () => undefined;

  attach(uuid: string, sink: ChannelEventSink): void {
    this.channels.set(uuid, sink);
  }

  /** Detaches only if `sink` is still the owner (a newer owner is left alone). */
  detach(uuid: string, sink: ChannelEventSink): void {
    if (this.channels.get(uuid) === sink) this.channels.delete(uuid);
  }

  owner(uuid: string): ChannelEventSink | undefined {
    return this.channels.get(uuid);
  }

  /** Background jobs whose BACKGROUND_JOB is still awaited. */
  get pendingJobs(): number {
    return this.jobs.size;
  }

  expectJob(jobUuid: string, handler: Handler): void {
    this.jobs.set(jobUuid, handler);
  }

  forgetJob(jobUuid: string): void {
    this.jobs.delete(jobUuid);
  }

  onCustom(subclass: string, handler: Handler): void {
    let set = this.custom.get(subclass);
    if (!set) this.custom.set(subclass, (set = new Set()));
    set.add(handler);
  }

  offCustom(subclass: string, handler: Handler): void {
    this.custom.get(subclass)?.delete(handler);
  }

  route(event: FsEvent): void {
    switch (event.name) {
      case 'BACKGROUND_JOB': {
        const jobUuid = event.header('Job-UUID') ?? '';
        const handler = this.jobs.get(jobUuid);
        if (!handler) return;
        this.jobs.delete(jobUuid);
        handler(event);
        return;
      }
      case 'CUSTOM': {
        // A member's conference event is also its channel's business (Unique-ID of the member).
        const uuid = event.uuid;
        if (uuid) this.channels.get(uuid)?.onEvent(event);
        for (const handler of this.custom.get(event.header('Event-Subclass') ?? '') ?? [])
          handler(event);
        return;
      }
      case 'HEARTBEAT':
      case 'API':
        return;
      default: {
        const uuid = event.uuid;
        if (!uuid) return;
        const owner = this.channels.get(uuid);
        if (owner) owner.onEvent(event);
        else this.unknownChannel(event);
      }
    }
  }
}
