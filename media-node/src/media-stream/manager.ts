import { lua } from '@voicegw/shared';
import type { MediaStreams, NodeContext } from '../context.js';
import type { RecordingReceiver } from '../recording/receiver.js';
import { streamCounters } from './counters.js';
import { MEDIA_PATH, MediaEndpoint } from './fs-endpoint.js';
import type { RelayHost } from './host.js';
import { Pacer } from './pacer.js';
import { Relay } from './relay.js';
import type { AudioForkUser, StartReport, StreamedSession, StreamRequest } from './types.js';

/** Why a media stream and a stream-mode recording cannot share a call, by who asked second. */
export const FORK_TAKEN: Readonly<Record<AudioForkUser, string>> = {
  recording: "The call's audio stream is in use by a media stream",
  'media stream': "The call's audio stream is in use by a recording",
};

/**
 * The node's media streams: at most one per session (the registry), FreeSWITCH's endpoint for
 * them, the one pacer their playouts share, and the rules that tie them to the rest of a call:
 * the module stream a stream-mode recording needs too, and the session's own audio (a playback,
 * a prompt, a conference) taking the call from a bidirectional stream while it plays.
 */
export class MediaStreamManager implements MediaStreams {
  readonly pacer: Pacer;
  readonly endpoint: MediaEndpoint;
  private readonly streams = new Map<string, Relay>();
  /** Sessions whose own audio holds the call, with how many things hold it. */
  private readonly holds = new Map<string, number>();
  private readonly host: RelayHost;

  constructor(
    private readonly node: NodeContext,
    private readonly receiver: RecordingReceiver,
  ) {
    this.pacer = new Pacer((err) => node.log.error({ err }, 'media stream playout failed'));
    this.endpoint = new MediaEndpoint(receiver);
    const count = streamCounters(node.metrics);
    this.host = {
      node,
      pacer: this.pacer,
      endpoint: this.endpoint,
      count,
      freeswitchUrl: (id) => `ws://127.0.0.1:${this.receiver.port}${MEDIA_PATH}${id}`,
      holding: (sessionId) => this.holds.has(sessionId),
      released: (relay) => {
        if (this.streams.get(relay.session.id) === relay) this.streams.delete(relay.session.id);
        count.open(this.streams.size);
      },
    };
  }

  /** Streams open now (connecting, starting or running). */
  get size(): number {
    return this.streams.size;
  }

  async start(
    session: StreamedSession,
    request: StreamRequest,
    report: StartReport,
  ): Promise<{ readonly confirmed: Promise<void> }> {
    const relay = new Relay(this.host, session, request, report);
    const refusal = this.refusal(session);
    if (refusal !== undefined) return { confirmed: relay.refuse(refusal) };
    // Registered at once: a record/start queued behind this finds the module stream taken.
    this.streams.set(session.id, relay);
    this.host.count.open(this.streams.size);
    // A recording's silence stream only fills the call: the application's audio will (one writer).
    if (request.bidirectional) await this.node.recordings.current(session)?.silence?.stop();
    return { confirmed: relay.open() };
  }

  /** Why a stream cannot start on this session now, if it cannot. */
  private refusal(session: StreamedSession): string | undefined {
    if (!session.channel.alive) return 'the call ended';
    // The api lets one stream/start through per session; a second one here would be a bug
    // elsewhere, and must not take the running stream's place.
    if (this.streams.has(session.id)) return 'Session already has a media stream';
    return this.forkTaken(session, 'media stream');
  }

  async stop(session: StreamedSession): Promise<boolean> {
    const relay = this.streams.get(session.id);
    if (relay) return relay.stop();
    // None here, yet the api saw one: it died with a node before this one adopted the call (a
    // stream does not outlive its node's sockets). The session is freed for another.
    const { scripts, keys } = this.node;
    await scripts.run(
      lua.updateSession({ session: keys.session(session.id) }, { fields: ['stream', ''] }),
    );
    return false;
  }

  async sessionEnded(session: StreamedSession): Promise<void> {
    this.holds.delete(session.id);
    await this.streams.get(session.id)?.close();
  }

  playing(session: StreamedSession): boolean {
    return this.streams.get(session.id)?.playing ?? false;
  }

  forkTaken(session: StreamedSession, by: AudioForkUser): string | undefined {
    // A file-mode recording is FreeSWITCH's uuid_record: no module stream.
    if (this.node.config.RECORDING_MODE !== 'stream') return undefined;
    const taken =
      by === 'recording'
        ? this.streams.has(session.id)
        : this.node.recordings.current(session) !== undefined;
    return taken ? FORK_TAKEN[by] : undefined;
  }

  yieldAudio(session: StreamedSession, until: Promise<unknown>): void {
    const { id } = session;
    const holders = (this.holds.get(id) ?? 0) + 1;
    this.holds.set(id, holders);
    if (holders === 1) this.streams.get(id)?.interrupt();
    const release = (): void => {
      const left = (this.holds.get(id) ?? 1) - 1;
      if (left > 0) this.holds.set(id, left);
      else this.holds.delete(id);
    };
    until.then(release, release);
  }

  /** The node is going away: every stream ends (reason error), its event published. */
  async close(): Promise<void> {
    await Promise.allSettled(
      [...this.streams.values()].map((relay) =>
        relay.close({ reason: 'error', failure: 'the media node is shutting down' }),
      ),
    );
    this.pacer.close();
  }
}
