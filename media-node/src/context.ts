// The parts of the node import this context, so it imports none of the parts that do: the
// registries (sessions, rooms, recordings) appear here as the narrow interfaces their users
// call, which the classes implement. tools/test/import-cycles.test.ts keeps circles out.
import type {
  ClusterContext,
  EventPublisher,
  LuaScripts,
  Logger,
  MemberCommandMessage,
  RedisKeys,
  RoomCommandMessage,
} from '@voicegw/shared';
import type { Redis } from 'ioredis';
import type { MediaNodeConfig } from './config.js';
import type { EslClient } from './esl/client.js';
import type { DialTarget } from './esl/dial-target.js';
import type { EventRouter } from './esl/router.js';
import type { MediaCache } from './media/cache.js';
import type { NodeMetrics } from './metrics.js';
import type {
  AudioForkUser,
  StartReport,
  StreamedSession,
  StreamRequest,
} from './media-stream/types.js';
import type { ActiveRecording, CompletedRecording, RecordedSession } from './recording/capture.js';
import type { DidRoutes } from './session/did-routes.js';

/**
 * The node's sessions as the context offers them: counted, and left by a session that ends. A
 * Session holds this context, so the context cannot name Session: the parts that look sessions
 * up hold the registry itself (NodeWithSessions, session/registry.ts).
 */
export interface NodeSessions {
  readonly size: number;
  /** Forgets the session; nothing when its id belongs to another session by now. */
  remove(session: { readonly id: string }): void;
}

/** Room playback and cross-node members, for the rooms this node hosts (conference/rooms.ts). */
export interface RoomHost {
  execute(message: RoomCommandMessage): Promise<void>;
  /** A room control read after its deadline: not run, its state put back. */
  expire(message: RoomCommandMessage): Promise<void>;
  /** Mute and unmute of members on other nodes, through their bridge legs. */
  readonly bridges: { execute(message: MemberCommandMessage): Promise<void> };
}

/** What record/start and record/stop ask of the node's recorder (recording/recorder.ts). */
export interface Recordings {
  /** False in stream mode without RECORDING_SERVICE_URL (no receiver to stream to). */
  readonly enabled: boolean;
  current(session: RecordedSession): ActiveRecording | undefined;
  prepare(
    session: RecordedSession,
    commandUid: string,
    sampleRate: number,
  ): Promise<ActiveRecording>;
  /** Drops a recording FreeSWITCH would not start. */
  abandon(session: RecordedSession): Promise<void>;
  /** Ends the session's recording: what recording.completed says, undefined if none. */
  complete(session: RecordedSession): Promise<CompletedRecording | undefined>;
  publishCompleted(session: RecordedSession, done: CompletedRecording): Promise<void>;
}

/** The node's media streams (media-stream/manager.ts), as commands and the teardown use them. */
export interface MediaStreams {
  /**
   * Opens a stream, in the session's queue; `confirmed` settles once the stream/start has been
   * answered (`report`).
   */
  start(
    session: StreamedSession,
    request: StreamRequest,
    report: StartReport,
  ): Promise<{ readonly confirmed: Promise<void> }>;
  /** stream/stop, in the session's queue: true when a stream was stopped. */
  stop(session: StreamedSession): Promise<boolean>;
  /** The teardown, in the session's queue: a stream still open ends (hangup) before call.hangup. */
  sessionEnded(session: StreamedSession): Promise<void>;
  /** A bidirectional stream is open or opening: the application's audio is the call's. */
  playing(session: StreamedSession): boolean;
  /** Why `by` cannot have the call's one module stream now (the other has it), if it cannot. */
  forkTaken(session: StreamedSession, by: AudioForkUser): string | undefined;
  /**
   * The session's own audio (a playback, a prompt, a conference) takes the call until `until`
   * settles: a bidirectional stream's queued audio is dropped, its marks answered, and the
   * application's audio dropped meanwhile.
   */
  yieldAudio(session: StreamedSession, until: Promise<unknown>): void;
}

/** A party of this node bridged over SIP, as the watch over dead peers sees it (bridge/party.ts). */
export interface WatchedParty {
  readonly peerId: string;
  /** Confirmed and not over. */
  readonly bridged: boolean;
  readonly ended: Promise<void>;
  /** Hangs its SIP leg up: its call parks and leaves the bridge. */
  dropLeg(): void;
}

/** What the parts of a media node share: built once in node.ts, passed to sessions and commands. */
export interface NodeContext extends ClusterContext {
  readonly config: MediaNodeConfig;
  /** This node's 5-character prefix (of every session id it owns). */
  readonly prefix: string;
  readonly log: Logger;
  /** Commands (with a timeout); never used for blocking reads. */
  readonly redis: Redis;
  readonly keys: RedisKeys;
  readonly scripts: LuaScripts;
  readonly events: EventPublisher;
  readonly esl: EslClient;
  readonly router: EventRouter;
  readonly sessions: NodeSessions;
  /** The DID map as last read, for admitting inbound calls in one round trip. */
  readonly didRoutes: DidRoutes;
  readonly metrics: NodeMetrics;
  /** Audio fetched over HTTP for playback, as local files FreeSWITCH can play. */
  readonly media: MediaCache;
  /** Playback of the conference rooms this node hosts. */
  readonly rooms: RoomHost;
  /** The recording receiver, the sessions' recordings and their retention. */
  readonly recordings: Recordings;
  /** Media streams to applications' WebSockets. */
  readonly streams: MediaStreams;
  /** Parties bridged to other nodes, watched for a peer whose node died (bridge/watch.ts). */
  readonly bridges: { watch(party: WatchedParty): void };
  /** Set by SIGTERM: no new inbound calls; the heartbeat says so, so no new dials or rooms. */
  readonly draining: boolean;
  /** Whether dials can work through this FreeSWITCH, as last checked on (re)connect. */
  readonly dialTarget: DialTarget;
}
