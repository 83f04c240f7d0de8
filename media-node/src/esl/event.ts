/**
 * One FreeSWITCH event as the event socket delivers it (`event json`): every header value a
 * string, an optional body (BACKGROUND_JOB results, api replies carried as events).
 */
export class FsEvent {
  constructor(
    readonly headers: Readonly<Record<string, string>>,
    readonly body = '',
  ) {}

  get name(): string {
    return this.headers['Event-Name'] ?? '';
  }

  /** The channel the event is about; absent on API, HEARTBEAT, BACKGROUND_JOB... */
  get uuid(): string | undefined {
    return this.headers['Unique-ID'];
  }

  header(name: string): string | undefined {
    return this.headers[name];
  }

  /** A channel variable, sent as the `variable_<name>` header. */
  variable(name: string): string | undefined {
    return this.headers[`variable_${name}`];
  }
}

/**
 * The events the media node subscribes to (`event json ...`), each used somewhere in src/:
 * channel life cycle, application completion (Application-UUID ties it to our sendmsg),
 * background jobs (originate), media, DTMF, HEARTBEAT (liveness) and conference maintenance.
 */
export const SUBSCRIBED_EVENTS = [
  'CHANNEL_PARK',
  'CHANNEL_PROGRESS',
  'CHANNEL_PROGRESS_MEDIA',
  'CHANNEL_ANSWER',
  'CHANNEL_HANGUP',
  'CHANNEL_HANGUP_COMPLETE',
  'CHANNEL_EXECUTE',
  'CHANNEL_EXECUTE_COMPLETE',
  'BACKGROUND_JOB',
  'PLAYBACK_START',
  'PLAYBACK_STOP',
  'RECORD_START',
  'RECORD_STOP',
  'DTMF',
  'HEARTBEAT',
  'CUSTOM',
  'conference::maintenance',
] as const;
