/**
 * One FreeSWITCH event as the event socket delivers it (`event json`): its headers as the JSON
 * object came (a multi-valued header is an array there), and an optional body (BACKGROUND_JOB
 * results, api replies carried as events). A header is read as text, a multi-valued one as its
 * values joined with commas; the conversion happens on read, as a handler reads a few of the
 * hundred or more headers an event carries.
 */
export class FsEvent {
  constructor(
    private readonly fields: Readonly<Record<string, unknown>>,
    readonly body = '',
  ) {}

  /** Every header as text (for logs and tests: handlers read the few they need). */
  get headers(): Readonly<Record<string, string>> {
    return Object.fromEntries(
      Object.keys(this.fields).map((name) => [name, this.header(name) ?? '']),
    );
  }

  get name(): string {
    return this.header('Event-Name') ?? '';
  }

  /** The channel the event is about; absent on API, HEARTBEAT, BACKGROUND_JOB... */
  get uuid(): string | undefined {
    return this.header('Unique-ID');
  }

  header(name: string): string | undefined {
    const value = this.fields[name];
    if (typeof value === 'string' || value === undefined) return value;
    return Array.isArray(value) ? value.join(',') : JSON.stringify(value);
  }

  /** A channel variable, sent as the `variable_<name>` header. */
  variable(name: string): string | undefined {
    return this.header(`variable_${name}`);
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
