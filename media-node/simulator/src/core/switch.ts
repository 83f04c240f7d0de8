// The simulated FreeSWITCH core: identity, channels, conferences, numbers, the event sinks (one
// per socket listener), API execution (with its API event) and the HEARTBEAT.
import { randomUUID } from 'node:crypto';
import type { Logger } from '@voicegw/shared';
import type { FsEvent } from '../esl/event.js';
import type { AppHandle, EventSink, SimContext } from './context.js';
import type { Channel } from './channel.js';
import { EventFactory, type CallingSite, type Identity } from './event-factory.js';
import { NumberBook } from './numbers.js';
import { MediaResolver } from '../media/audio-source.js';
import { CallAudioRegistry } from '../media/call-audio.js';
import { ConferenceRegistry } from '../conference/conference.js';
import { APPS } from '../apps/index.js';
import { createApi, type ApiResult } from '../api/index.js';
import { upTime, VERSION } from '../api/info.js';
import { HEARTBEAT_MS } from './timing.js';
import { Trunk } from '../trunk/trunk.js';

/** DIAL_STRING_TEMPLATE's default dials sofia/gateway/pstn/{to}. */
export const DEFAULT_GATEWAYS = ['pstn'];

export interface SwitchOptions {
  readonly hostname: string;
  readonly ipv4: string;
  readonly log: Logger;
  readonly heartbeatMs?: number;
  readonly gateways?: readonly string[];
}

export class SimSwitch implements SimContext {
  readonly identity: Identity;
  readonly log: Logger;
  readonly channels = new Map<string, Channel>();
  readonly numbers = new NumberBook();
  readonly media: MediaResolver;
  readonly audio = new CallAudioRegistry();
  readonly conferences: ConferenceRegistry;
  readonly trunk: Trunk;
  readonly gateways: ReadonlySet<string>;
  /** Where fired events go: every event-socket listener. */
  readonly sinks = new Set<EventSink>();
  private readonly factory: EventFactory;
  private readonly runApi: ReturnType<typeof createApi>;
  private readonly heartbeat: NodeJS.Timeout;
  private sessionsSinceStart = 0;

  constructor(opts: SwitchOptions) {
    this.identity = {
      coreUuid: randomUUID(),
      hostname: opts.hostname,
      ipv4: opts.ipv4,
      ipv6: '::1',
      startedAt: Date.now(),
    };
    this.log = opts.log;
    this.factory = new EventFactory(this.identity);
    this.media = new MediaResolver(opts.log);
    this.conferences = new ConferenceRegistry(() => this);
    this.trunk = new Trunk(this);
    this.gateways = new Set(opts.gateways ?? DEFAULT_GATEWAYS);
    this.runApi = createApi(() => this.sessionsSinceStart);
    this.heartbeat = setInterval(() => this.fireHeartbeat(), opts.heartbeatMs ?? HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  createEvent(name: string, site?: CallingSite, subclass?: string): FsEvent {
    return this.factory.create(name, site, subclass);
  }

  fire(event: FsEvent): void {
    for (const sink of this.sinks) sink.deliver(event);
  }

  fireIfHeard(name: string, addHeaders: (event: FsEvent) => void): void {
    if (![...this.sinks].some((sink) => sink.hears(name))) {
      this.factory.skip();
      return;
    }
    const event = this.createEvent(name);
    addHeaders(event);
    this.fire(event);
  }

  launch(channel: Channel, app: string, arg: string): AppHandle | undefined {
    return APPS.get(app)?.(channel, arg, this);
  }

  noteSession(): void {
    this.sessionsSinceStart++;
  }

  /** Runs an API command; the API event follows the reply, as in the traces. */
  async api(cmd: string, arg: string): Promise<ApiResult> {
    const result = await this.runApi(this, cmd, arg);
    setImmediate(() => {
      const ev = this.createEvent('API');
      ev.headers.push(['API-Command', cmd]);
      if (arg) ev.headers.push(['API-Command-Argument', arg]);
      this.fire(ev);
    });
    return result;
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const ch of [...this.channels.values()]) ch.hangup('MANAGER_REQUEST');
  }

  private fireHeartbeat(): void {
    const up = Date.now() - this.identity.startedAt;
    const ev = this.createEvent('HEARTBEAT');
    ev.headers.push(
      ['Event-Info', 'System Ready'],
      ['Up-Time', upTime(up)],
      ['FreeSWITCH-Version', VERSION],
      ['Uptime-msec', String(up)],
      ['Session-Count', String(this.channels.size)],
      ['Max-Sessions', '1000'],
      ['Session-Per-Sec', '30'],
      ['Session-Per-Sec-Last', '0'],
      ['Session-Per-Sec-Max', '0'],
      ['Session-Per-Sec-FiveMin', '0'],
      ['Session-Since-Startup', String(this.sessionsSinceStart)],
      ['Session-Peak-Max', String(this.channels.size)],
      ['Session-Peak-FiveMin', String(this.channels.size)],
      ['Idle-CPU', '99.000000'],
    );
    this.fire(ev);
  }
}
