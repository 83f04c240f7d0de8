import type {
  ClusterContext,
  EventPublisher,
  LuaScripts,
  Logger,
  RedisKeys,
} from '@voicegw/shared';
import type { Redis } from 'ioredis';
import type { MediaNodeConfig } from './config.js';
import type { EslClient } from './esl/client.js';
import type { DialTarget } from './esl/dial-target.js';
import type { EventRouter } from './esl/router.js';
import type { Rooms } from './conference/rooms.js';
import type { MediaCache } from './media/cache.js';
import type { NodeMetrics } from './metrics.js';
import type { Recorder } from './recording/recorder.js';
import type { DidRoutes } from './session/did-routes.js';
import type { SessionRegistry } from './session/registry.js';

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
  readonly sessions: SessionRegistry;
  /** The DID map as last read, for admitting inbound calls in one round trip. */
  readonly didRoutes: DidRoutes;
  readonly metrics: NodeMetrics;
  /** Audio fetched over HTTP for playback, as local files FreeSWITCH can play. */
  readonly media: MediaCache;
  /** Playback of the conference rooms this node hosts. */
  readonly rooms: Rooms;
  /** The recording receiver, the sessions' recordings and their retention. */
  readonly recordings: Recorder;
  /** Set by SIGTERM: no new inbound calls; the heartbeat says so, so no new dials or rooms. */
  readonly draining: boolean;
  /** Whether dials can work through this FreeSWITCH, as last checked on (re)connect. */
  readonly dialTarget: DialTarget;
}
