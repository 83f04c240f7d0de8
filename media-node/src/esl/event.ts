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

/** What a connection asks FreeSWITCH to send it: `event json <events>`, then `filter` lines. */
export interface EventSubscription {
  /** Event names; `CUSTOM` must precede its subclasses. */
  readonly events: readonly string[];
  /** `filter <header> <value>` lines (none: every subscribed event comes). */
  readonly filters: readonly EventFilter[];
}

/** One `filter` line: a value led by `-` keeps out the events it matches. */
export type EventFilter = readonly [header: string, value: string];

/**
 * The events the media node subscribes to, each used somewhere in src/: channel life cycle,
 * bridges, application completion (Application-UUID ties it to our sendmsg), background jobs
 * (originate), media, DTMF, HEARTBEAT (liveness), conference maintenance and mod_audio_stream's
 * failures (media streams).
 */
const SUBSCRIBED_EVENTS = [
  'CHANNEL_PARK',
  'CHANNEL_PROGRESS',
  'CHANNEL_PROGRESS_MEDIA',
  'CHANNEL_ANSWER',
  'CHANNEL_HANGUP',
  'CHANNEL_HANGUP_COMPLETE',
  'CHANNEL_EXECUTE',
  'CHANNEL_EXECUTE_COMPLETE',
  'CHANNEL_BRIDGE',
  'CHANNEL_UNBRIDGE',
  'BACKGROUND_JOB',
  'PLAYBACK_START',
  'PLAYBACK_STOP',
  'RECORD_START',
  'RECORD_STOP',
  'DTMF',
  'HEARTBEAT',
  'CUSTOM',
  'conference::maintenance',
  'mod_audio_stream::error',
  'mod_audio_stream::disconnect',
] as const;

/**
 * The applications whose start (CHANNEL_EXECUTE) the node reads: a playback or a prompt has
 * begun, a call has moved into a bridge. A handler that reads another application's start must
 * add it here, or FreeSWITCH never sends it.
 */
const WATCHED_APPLICATION_STARTS = ['playback', 'play_and_get_digits', 'uuid_bridge'] as const;

/**
 * The media node's subscription. FreeSWITCH sends an event that a positive filter matches and no
 * negative one does: here every subscribed event by name but CHANNEL_EXECUTE, the CHANNEL_EXECUTE
 * of the watched applications, and no event of park's. That keeps out 3 of the 8 events an
 * answered and hung-up call brings, none of which a handler reads: the starts of park and answer,
 * and park's completion (the hangup ends it; the node never executes park itself). FreeSWITCH
 * filters before it serialises an event for the listener, so what is kept out is neither
 * serialised, sent nor parsed.
 */
export const NODE_SUBSCRIPTION: EventSubscription = {
  events: SUBSCRIBED_EVENTS,
  filters: [
    ...SUBSCRIBED_EVENTS.filter((name) => name !== 'CHANNEL_EXECUTE' && !name.includes('::')).map(
      (name): EventFilter => ['Event-Name', name],
    ),
    ...WATCHED_APPLICATION_STARTS.map((app): EventFilter => ['Application', app]),
    ['Application', '-park'],
  ],
};
