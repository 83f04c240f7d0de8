// The public surface of @voicegw/shared: the contracts between the gateway's processes and the
// runtime they share (see README.md). Development tooling lives in @voicegw/tools.
export { createLogger, REDACTED_PATHS } from './logger.js';
export { background, settledWithin } from './async/background.js';
export { closeOnSignals, exitWhenClosed } from './async/shutdown.js';
export { hopTrace, monotonicMs } from './hop-trace.js';
export { coalesceWrites, type WriteFlush } from './net/coalesce-writes.js';
export { isForbiddenAddress } from './net/forbidden-address.js';
export {
  FORBIDDEN_ADDRESS_CODE,
  literalRefusal,
  systemResolver,
  vettedLookup,
  type Resolver,
} from './net/vetted-lookup.js';
export { signWebhook } from './apps/signature.js';
export { webhookSecret } from './apps/secret.js';
export type { HopMarks } from './hop-trace.js';
export type { Logger, LoggerSettings } from './logger.js';
export { loadConfig, ConfigError } from './config/load.js';
export { CommonEnv, BooleanFlag, RecordingModeEnv } from './config/common.js';
export { RedisEnv, redisEndpoint, withRedisEndpoint } from './config/redis.js';
export type { RedisEndpoint, SentinelAddress, WithRedisEndpoint } from './config/redis.js';

export * from './ids.js';

export { EVENT_NAMES, isEventName } from './events/names.js';
export type { EventName } from './events/names.js';
export {
  EventPayloadSchemas,
  HANGUP_CAUSES,
  DIGITS_STATUSES,
  STREAM_STOP_REASONS,
  UNBRIDGE_REASONS,
  TRANSFER_OUTCOMES,
} from './events/payloads.js';
export type {
  EventPayload,
  HangupCause,
  StreamStopReason,
  UnbridgeReason,
  TransferOutcome,
} from './events/payloads.js';
export type { EventEnvelope } from './events/envelope.js';
export { RedisStreamPublisher, envelope, eventArgs, EVENT_FIELDS } from './events/publisher.js';
export type { EventPublisher } from './events/publisher.js';

// The bus itself (kafkajs, redlock) is @voicegw/shared/bus; publishing needs only this.
export { createEventPublisher } from './bus/publisher.js';

export {
  SessionCommandBodies,
  SESSION_COMMAND_NAMES,
  isSessionCommandName,
  commandRoomId,
  resultCommandName,
  DialBody,
  AudioUrl,
  AudioUrls,
  ISRAELI_NUMBER_PATTERN,
  RING_TIMEOUT_SEC,
  STREAM_TRACKS,
  STREAM_URL_PATTERN,
  MAX_CUSTOM_PARAMETERS,
  MAX_CUSTOM_PARAMETER_LENGTH,
  CUSTOM_PARAMETER_NAME_PATTERN,
  URL_PATTERN,
  MAX_URLS,
  MAX_URL_LENGTH,
  COMMAND_UID_PATTERN,
} from './commands/schemas.js';
export type {
  SessionCommandName,
  SessionCommandArgs,
  DialArgs,
  StreamTrack,
} from './commands/schemas.js';
export {
  COMMAND_FIELD,
  DEFERRED_TIMEOUT_MS,
  transferTimeoutMs,
  encodeCommand,
  decodeCommand,
} from './commands/stream.js';
export { COMMAND_GROUP, NODE_LOST, failedResult } from './commands/failure.js';
export type {
  CommandMessage,
  SessionCommandMessage,
  SessionCommandMessageArgs,
  RoomCommandMessage,
  RoomCommandName,
  DialCommandMessage,
  MemberCommandMessage,
} from './commands/stream.js';

export { RedisKeys } from './redis/keys.js';
export { compareStreamIds, toRecord } from './redis/stream-ids.js';
export type { SessionDirection, SessionIndexState } from './redis/keys.js';
export { createRedis } from './redis/client.js';
export type { RedisClientOptions } from './redis/client.js';
export { LuaScripts } from './redis/scripts.js';
export { untilWritten, writeOnce, isRedisUnavailable, RedisWriteAbandoned } from './redis/retry.js';
export type { UntilWritten, UntilWrittenOptions } from './redis/retry.js';
export { SCRIPT_BUILDERS as lua, type ScriptName } from './redis/lua/index.js';
export {
  ScriptCode,
  failureCode,
  scriptCodeName,
  type ScriptCodeName,
} from './redis/script-codes.js';
export type { ScriptArg, ScriptRun } from './redis/script-spec.js';
export { ScriptBatcher } from './redis/script-batcher.js';
export type { BatchReply, ScriptBatcherOptions } from './redis/script-batcher.js';

export {
  SessionStore,
  addSession,
  parseSession,
  sessionFields,
  BRIDGE_STATES,
} from './sessions/record.js';
export type {
  SessionRecord,
  NewSession,
  ConferenceState,
  DialStatus,
  BridgeState,
  SessionBridge,
} from './sessions/record.js';
export {
  RecordingStore,
  parseRecording,
  recordingPath,
  RECORDING_FALLBACK_MS,
} from './recordings/store.js';
export type { RecordingRecord, NewRecording, ExpiredRecording } from './recordings/store.js';
export {
  readWavLayout,
  wavDataBytes,
  wavHeader,
  WAV_HEAD_BYTES,
  WAV_HEADER_BYTES,
} from './recordings/wav.js';
export type { WavLayout } from './recordings/wav.js';
export { NodeRegistry, PrefixCollisionError } from './nodes/registry.js';
export { OrphanSweeper } from './cluster/sweeper.js';
export type { SweeperOptions } from './cluster/sweeper.js';
export type { ClusterContext } from './cluster/context.js';
export { SweepEnv } from './cluster/config.js';
export { failDeadNodeCommands } from './cluster/dead-commands.js';
export { endOrphan } from './cluster/orphan.js';
export { recordHangup } from './sessions/hangup.js';
export type { HangupRecord } from './sessions/hangup.js';
export { recordUnbridge, clearRefusedBridge } from './sessions/unbridge.js';
export type { UnbridgeRecord } from './sessions/unbridge.js';
export type { FreeswitchState, NodeHeartbeat, LiveNode } from './nodes/registry.js';

export { createMetricsRegistry, LabelledChildren } from './metrics.js';
export { startOperatorServer } from './operator-server.js';
export type { HealthReport, OperatorServer } from './operator-server.js';
