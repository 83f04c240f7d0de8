export type SessionDirection = 'inbound' | 'outbound';
/** Which of an app's session indexes: calls in progress, or ended ones still readable. */
export type SessionIndexState = 'live' | 'ended';

/**
 * Every Redis key and channel of the gateway, built in one place. Nothing else writes a key string.
 * Keys share one prefix so that several gateways (or test files) can share one Redis.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  // Applications
  app(appId: string): string {
    return `${this.prefix}:app:${appId}`;
  }
  appCids(appId: string): string {
    return `${this.prefix}:app:${appId}:cids`;
  }
  appDids(appId: string): string {
    return `${this.prefix}:app:${appId}:dids`;
  }
  /** Hash: DID (called number) → app id, for inbound routing. */
  didRoutes(): string {
    return `${this.prefix}:dids`;
  }
  /** Pub/sub channel announcing app ids whose configuration changed. */
  appsChanged(): string {
    return `${this.prefix}:apps:changed`;
  }

  // Sessions
  session(sessionId: string): string {
    return `${this.prefix}:sess:${sessionId}`;
  }
  /**
   * Sorted set: an app's sessions of one state and direction, scored by creation time (ms): the
   * session list reads the ones its filters name. Written where sessions are created and ended.
   */
  appSessions(appId: string, state: SessionIndexState, direction: SessionDirection): string {
    return `${this.prefix}:app:${appId}:sess:${state}:${direction}`;
  }
  /** Sorted set: an app's ended sessions of one direction → epoch ms their record expires. */
  appSessionsExpiry(appId: string, direction: SessionDirection): string {
    return `${this.prefix}:app:${appId}:sess:expiry:${direction}`;
  }
  /** Idempotency claim of one command_uid on one session of one app. */
  commandClaim(appId: string, sessionId: string, commandUid: string): string {
    return `${this.prefix}:claim:${appId}:${sessionId}:${commandUid}`;
  }
  /** Cooldown marker of one command group on one session or room. */
  cooldown(scope: 'sess' | 'room', id: string, group: string): string {
    return `${this.prefix}:cool:${scope}:${id}:${group}`;
  }

  /**
   * Fills a KEYS slot that a script does not touch in this call (the claim of a command_uid the
   * api made up, the room of a command outside conferences): short, so the call stays small.
   */
  unused(): string {
    return `${this.prefix}:unused`;
  }

  // Conference rooms
  room(roomId: string): string {
    return `${this.prefix}:room:${roomId}`;
  }
  /** Sorted set of member session ids, scored by join order. */
  roomMembers(roomId: string): string {
    return `${this.prefix}:room:${roomId}:members`;
  }
  /** Sorted set of an app's room ids, scored by creation time in µs (createRoom-4.lua). */
  appRooms(appId: string): string {
    return `${this.prefix}:app:${appId}:rooms`;
  }
  /** Hash: room name → room id, the uniqueness index of names within an app. */
  appRoomNames(appId: string): string {
    return `${this.prefix}:app:${appId}:room-names`;
  }

  // Media nodes
  /** Set of every node prefix ever registered. */
  nodes(): string {
    return `${this.prefix}:nodes`;
  }
  /** String: the node name that owns a prefix (SET NX at registration). */
  nodeOwner(prefix: string): string {
    return `${this.prefix}:node:${prefix}:owner`;
  }
  /** Hash with a TTL: the node's heartbeat (capacity, load, draining). Absent = node is gone. */
  nodeHeartbeat(prefix: string): string {
    return `${this.prefix}:node:${prefix}:hb`;
  }
  /** Stream of commands for the media node that owns `prefix`. */
  commandStream(prefix: string): string {
    return `${this.prefix}:cmd:${prefix}`;
  }
  /** Set: ids of the live sessions a node owns (the orphan sweeper's work list if it dies). */
  nodeSessions(prefix: string): string {
    return `${this.prefix}:node:${prefix}:sessions`;
  }
  /** Sorted set: node prefix → epoch ms of its last heartbeat (when a dead node went away). */
  nodesSeen(): string {
    return `${this.prefix}:nodes:seen`;
  }
  /** Sorted set: session id → epoch ms its channel was found gone by a resync. */
  vanishedSessions(): string {
    return `${this.prefix}:orphans:vanished`;
  }
  /** String with a TTL: held by the one media node running the orphan sweep this round. */
  sweeperLock(): string {
    return `${this.prefix}:lock:sweeper`;
  }

  // Recordings
  /** Hash: one recording's metadata (app, file, times); expires with its retention. */
  recording(sessionId: string, recordingId: string): string {
    return `${this.prefix}:rec:${sessionId}:${recordingId}`;
  }
  /** String: id of the session's latest recording (served at .../recording/file.wav). */
  sessionRecording(sessionId: string): string {
    return `${this.prefix}:sess:${sessionId}:rec`;
  }
  /** Sorted set: `<session id>/<recording id>` → epoch ms its file and metadata expire. */
  recordingExpiry(): string {
    return `${this.prefix}:rec:expiry`;
  }
  /** String: the api's public base URL, announced by the api for building recording_url. */
  publicBaseUrl(): string {
    return `${this.prefix}:api:public-base-url`;
  }

  // Rate limiting
  rateWindow(scope: string, subject: string, window: number): string {
    return `${this.prefix}:rl:${scope}:${subject}:${window}`;
  }

  // Events and operations
  /** The event stream the api and media nodes publish to (the Redis event bus). */
  events(): string {
    return `${this.prefix}:events`;
  }
  /** Capped list of recent server-side errors, newest first. */
  recentErrors(): string {
    return `${this.prefix}:recent-errors`;
  }

  // Event bus (Redis implementation) and webhook delivery
  /** String: id of the last `events()` entry the router has forwarded to the bus. */
  eventRouterCursor(): string {
    return `${this.prefix}:events:router:cursor`;
  }
  /** Redlock resource held by the one dispatcher that routes `events()` onto the bus. */
  eventRouterLease(): string {
    return `${this.prefix}:events:router:lease`;
  }
  /** String: the shard count the shard streams were created with (EVENT_SHARDS). */
  eventShardCount(): string {
    return `${this.prefix}:events:shards`;
  }
  /** Stream of one shard of the event bus: the events of the apps that hash to it. */
  eventShard(shard: number): string {
    return `${this.prefix}:events:shard:${shard}`;
  }
  /** Redlock resource held by the one dispatcher reading a shard. */
  eventShardLease(shard: number): string {
    return `${this.prefix}:events:shard:${shard}:lease`;
  }
  /** Sorted set: dispatcher id → epoch ms of its last heartbeat (shard balancing). */
  dispatchers(): string {
    return `${this.prefix}:dispatchers`;
  }
  /** List: an app's retry lane, its waiting events oldest first; the head is being retried. */
  webhookLane(appId: string): string {
    return `${this.prefix}:wh:lane:${appId}`;
  }
  /** Set: event ids in an app's lane, so that a redelivered event is never parked twice. */
  webhookLaneIds(appId: string): string {
    return `${this.prefix}:wh:lane:${appId}:ids`;
  }
  /** Sorted set: app id → epoch ms its lane head is due, per bus partition. */
  webhookLanesDue(partition: string): string {
    return `${this.prefix}:wh:due:${partition}`;
  }
  /**
   * Pub/sub channel announcing the partition of a lane the api filled (a dead-letter replay), the
   * one kind of lane no dispatcher parked itself.
   */
  webhookLanesWoken(): string {
    return `${this.prefix}:wh:woken`;
  }
  /** List: an app's dead-lettered events, oldest first, capped. */
  webhookDeadLetters(appId: string): string {
    return `${this.prefix}:wh:dead:${appId}`;
  }
}
