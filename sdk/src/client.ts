import type { CommandAccepted, CommandArgs, SessionCommand } from './commands.js';
import type {
  ConferenceControlAccepted,
  ConferenceCreated,
  ConferenceDeleted,
  ConferenceList,
  ConferenceListQuery,
  ConferenceStatus,
  DialPlaced,
  DialRequest,
  DialStatus,
  MemberList,
  MemberListQuery,
  Session,
  SessionCommandBodies,
  SessionList,
  SessionListQuery,
} from './contract.js';
import { Http, type HttpOptions } from './http.js';

export interface VoiceGatewayOptions extends HttpOptions {
  readonly appId: string;
  readonly apiKey: string;
}

const seg = encodeURIComponent;

/**
 * The application API: conferences, session commands, dial and its status, sessions and
 * recordings. Every method answers the 2xx body typed from the gateway's own schemas, or throws a
 * VoiceGatewayError; 429 and 503 are retried first (see `retry`).
 */
export class VoiceGateway {
  readonly conferences: Conferences;
  readonly sessions: Sessions;
  private readonly http: Http;

  constructor(options: VoiceGatewayOptions) {
    this.http = new Http(options, { 'x-app-id': options.appId, 'x-api-key': options.apiKey });
    this.conferences = new Conferences(this.http);
    this.sessions = new Sessions(this.http);
  }

  /** Originates an outbound call; progress arrives as events (session.ringing, call.answered…). */
  dial(request: DialRequest): Promise<DialPlaced> {
    return this.http.json({ method: 'POST', path: '/api/v1/dial', body: request });
  }

  /** The status of a dial (`dialing` … `ended`). */
  dialStatus(sessionUuid: string): Promise<DialStatus> {
    return this.http.json({ method: 'GET', path: `/api/v1/dial/${seg(sessionUuid)}` });
  }

  /** A recording_url of a `recording.completed` event, as a stream of WAV bytes. */
  async recordingFromUrl(recordingUrl: string): Promise<ReadableStream<Uint8Array>> {
    return bodyOf(await this.http.sendUrl(recordingUrl));
  }
}

export class Conferences {
  constructor(private readonly http: Http) {}

  create(name: string): Promise<ConferenceCreated> {
    return this.http.json({ method: 'POST', path: '/api/v1/conferences', body: { name } });
  }
  list(query: ConferenceListQuery = {}): Promise<ConferenceList> {
    return this.http.json({ method: 'GET', path: '/api/v1/conferences', query });
  }
  /** Every room of the app, page after page. */
  async *all(pageSize?: number): AsyncGenerator<ConferenceList['conferences'][number]> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ limit: pageSize, cursor });
      yield* page.conferences;
      cursor = page.cursor || undefined;
    } while (cursor);
  }
  get(roomId: string): Promise<ConferenceStatus> {
    return this.http.json({ method: 'GET', path: this.path(roomId) });
  }
  members(roomId: string, query: MemberListQuery = {}): Promise<MemberList> {
    return this.http.json({ method: 'GET', path: `${this.path(roomId)}/members`, query });
  }
  delete(roomId: string): Promise<ConferenceDeleted> {
    return this.http.json({ method: 'DELETE', path: this.path(roomId) });
  }
  play(roomId: string, urls: readonly string[]): Promise<ConferenceControlAccepted> {
    return this.http.json({ method: 'POST', path: `${this.path(roomId)}/play`, body: { urls } });
  }
  /** Toggles pause and resume of the room's playback. */
  pause(roomId: string): Promise<ConferenceControlAccepted> {
    return this.http.json({ method: 'POST', path: `${this.path(roomId)}/pause` });
  }
  stop(roomId: string): Promise<ConferenceControlAccepted> {
    return this.http.json({ method: 'POST', path: `${this.path(roomId)}/stop` });
  }
  volume(roomId: string, volume: number): Promise<ConferenceControlAccepted> {
    return this.http.json({
      method: 'POST',
      path: `${this.path(roomId)}/volume`,
      body: { volume },
    });
  }
  private path(roomId: string): string {
    return `/api/v1/conferences/${seg(roomId)}`;
  }
}

export class Sessions {
  constructor(private readonly http: Http) {}

  /** The app's sessions, newest first: active ones and recently ended ones. */
  list(query: SessionListQuery = {}): Promise<SessionList> {
    return this.http.json({ method: 'GET', path: '/api/v1/sessions', query });
  }
  /** Every session matching `query`, page after page. */
  async *all(query: Omit<SessionListQuery, 'cursor'> = {}): AsyncGenerator<Session> {
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...query, cursor });
      yield* page.sessions;
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
  }
  get(sessionUuid: string): Promise<Session> {
    return this.http.json({ method: 'GET', path: `/api/v1/sessions/${seg(sessionUuid)}` });
  }

  /**
   * Sends a session command. It always carries a `command_uid` (the one given, else a new UUID),
   * the same on every retry, so a retried command runs once; the answer includes it.
   */
  async command<C extends SessionCommand>(
    sessionUuid: string,
    command: C,
    ...[body]: CommandArgs<C>
  ): Promise<CommandAccepted<C>> {
    const commandUid = body?.command_uid ?? crypto.randomUUID();
    const answer = await this.http.json<object>({
      method: 'POST',
      path: `/api/v1/sessions/${seg(sessionUuid)}/commands/${command}`,
      body: { ...body, command_uid: commandUid },
    });
    return { ...answer, command_uid: commandUid } as CommandAccepted<C>;
  }

  answer = this.bind('answer');
  hangup = this.bind('hangup');
  disconnect = this.bind('disconnect');
  playbackStart = this.bind('playback/start');
  playbackStop = this.bind('playback/stop');
  playbackPause = this.bind('playback/pause');
  playbackResume = this.bind('playback/resume');
  playbackSeek = this.bind('playback/seek');
  playbackRestart = this.bind('playback/restart');
  playbackSilence = this.bind('playback/silence');
  playAndGetDigits = this.bind('play_and_get_digits');
  recordStart = this.bind('record/start');
  recordStop = this.bind('record/stop');
  conferenceJoin = this.bind('conference/join');
  conferenceLeave = this.bind('conference/leave');
  conferenceMute = this.bind('conference/mute');
  conferenceUnmute = this.bind('conference/unmute');
  streamStart = this.bind('stream/start');
  streamStop = this.bind('stream/stop');
  /** Connects the session to another of the app's answered sessions: `call.bridged` on both. */
  bridge = this.bind('bridge');
  /** Separates a bridged session from its peer, both staying up: `call.unbridged` on both. */
  unbridge = this.bind('unbridge');
  /**
   * Calls `to` and bridges it to the session once it answers. The answer's `peer_session_uuid`
   * is the new leg (its events carry `parent_session_uuid`); the command.result, within
   * `timeout_ms`, says its `outcome`.
   */
  transfer = this.bind('transfer');

  /**
   * A recording of the session as a stream of WAV bytes: `recordingId`'s, or the latest one
   * (growing while it records). An expired recording is a VoiceGatewayError with status 404.
   */
  async recording(sessionUuid: string, recordingId?: string): Promise<ReadableStream<Uint8Array>> {
    const file = recordingId === undefined ? 'file' : seg(recordingId);
    const path = `/api/v1/sessions/${seg(sessionUuid)}/recording/${file}.wav`;
    return bodyOf(await this.http.send({ method: 'GET', path }));
  }

  private bind<C extends SessionCommand>(command: C) {
    return (sessionUuid: string, ...body: CommandArgs<C>): Promise<CommandAccepted<C>> =>
      this.command(sessionUuid, command, ...body);
  }
}

function bodyOf(res: Response): ReadableStream<Uint8Array> {
  if (!res.body) throw new Error('the gateway answered without a body');
  return res.body;
}

export type { SessionCommandBodies };
