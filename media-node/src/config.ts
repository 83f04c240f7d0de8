import {
  BooleanFlag,
  CommonEnv,
  ConfigError,
  loadConfig,
  RecordingModeEnv,
  SweepEnv,
  withRedisEndpoint,
  type WithRedisEndpoint,
} from '@voicegw/shared';
import { Type, type Static } from 'typebox';

const ms = (fallback: number, minimum: number, description: string) =>
  Type.Integer({ minimum, default: fallback, description });

/**
 * Environment of the media node. The descriptions are its documentation: `npm run config:doc`
 * renders them into docs/media-node.md and docs/configuration.md.
 */
export const MediaNodeEnv = Type.Object({
  ...CommonEnv,
  ...SweepEnv,
  NODE_NAME: Type.String({
    minLength: 1,
    maxLength: 253,
    description:
      'Stable name of the node (a StatefulSet pod name). Its 5-character prefix is derived from ' +
      'it: the same name after a restart keeps its sessions. Two live processes must never ' +
      'share a name.',
  }),
  FS_ESL_HOST: Type.String({ default: '127.0.0.1', description: 'FreeSWITCH event socket host.' }),
  FS_ESL_PORT: Type.Integer({
    minimum: 1,
    maximum: 65_535,
    default: 8021,
    description: 'Event socket port.',
  }),
  FS_ESL_PASSWORD: Type.String({
    minLength: 1,
    default: 'ClueCon',
    description:
      'Event socket password; an empty one is refused (FreeSWITCH would accept `ClueCon` ' +
      'instead).',
  }),
  ESL_CONNECT_TIMEOUT_MS: ms(3000, 100, 'Connect and authenticate within this time, else retry.'),
  ESL_REQUEST_TIMEOUT_MS: ms(5000, 100, 'Timeout of every `api`, `bgapi` and `sendmsg` reply.'),
  ESL_RECONNECT_MIN_MS: ms(100, 10, 'First reconnect delay; doubles on each failure.'),
  ESL_RECONNECT_MAX_MS: ms(5000, 100, 'Cap of the reconnect delay.'),
  ESL_IDLE_PING_MS: ms(
    30_000,
    1000,
    'Probe the socket with `api status` after this long without traffic (FreeSWITCH sends ' +
      'HEARTBEAT every 20 s).',
  ),
  CAPACITY: Type.Integer({
    minimum: 1,
    default: 500,
    description:
      "Concurrent calls; inbound calls beyond it are refused, and the heartbeat's outbound " +
      'capacity is what is left.',
  }),
  HEARTBEAT_INTERVAL_MS: ms(
    5000,
    100,
    'How often the node announces itself; at most half of `HEARTBEAT_TTL_MS`.',
  ),
  COMMAND_BLOCK_MS: ms(
    5000,
    10,
    'XREADGROUP BLOCK time of the command consumer. A command is read as soon as it is ' +
      'appended; this only ends a read that finds nothing (a wake-up of the node and of Redis).',
  ),
  COMMAND_BATCH: Type.Integer({
    minimum: 1,
    maximum: 1000,
    default: 100,
    description: 'Entries read per XREADGROUP.',
  }),
  COMMAND_CONCURRENCY: Type.Integer({
    minimum: 1,
    default: 1000,
    description: 'Commands in execution at once; reading pauses above it.',
  }),
  COMMAND_CLAIM_IDLE_MS: ms(
    30_000,
    100,
    'A command pending this long on another consumer (a dead one) is claimed and executed.',
  ),
  COMMAND_CLAIM_INTERVAL_MS: ms(
    15_000,
    100,
    'How often pending commands are claimed and the stream trimmed.',
  ),
  COMMAND_DEADLINE_MS: ms(
    5000,
    100,
    'A command read this long after the api accepted it (`issued_at`) is answered as expired, ' +
      'not executed: a session command `success: false`, a dial `call.hangup` failed, a room ' +
      'control not run.',
  ),
  DIAL_STRING_TEMPLATE: Type.String({
    default: 'sofia/gateway/pstn/{to}',
    pattern: '\\{to\\}',
    description: 'FreeSWITCH dial string of outbound calls; `{to}` is the dialled number.',
  }),
  FS_SIP_ADDRESS: Type.Optional(
    Type.String({
      pattern: '^[^\\s/@]+:\\d{1,5}$',
      description:
        "`host:port` at which other nodes' FreeSWITCH reach this one over SIP, announced in the " +
        'heartbeat. Unset: sessions on other nodes can neither join rooms hosted here nor be ' +
        'bridged to sessions here (their join or bridge fails).',
    }),
  ),
  CONFERENCE_BRIDGE_TEMPLATE: Type.String({
    default: 'sofia/external/voicegw-conf-{room}@{host}',
    pattern: '\\{room\\}[\\s\\S]*\\{host\\}|\\{host\\}[\\s\\S]*\\{room\\}',
    description:
      'Dial string of the bridge leg to a room on another node; `{room}` is the room id, `{host}` ' +
      "that node's `FS_SIP_ADDRESS`. The host must see the call to `voicegw-conf-<room id>`.",
  }),
  BRIDGE_LEG_TEMPLATE: Type.String({
    default: 'sofia/external/voicegw-bridge-{session}@{host}',
    pattern: '\\{session\\}[\\s\\S]*\\{host\\}|\\{host\\}[\\s\\S]*\\{session\\}',
    description:
      'Dial string of the leg that connects a bridged session to its peer on another node; ' +
      "`{session}` is the peer's session id, `{host}` its node's `FS_SIP_ADDRESS`. The peer's " +
      'node must see the call to `voicegw-bridge-<session id>`.',
  }),
  TRANSFER_RINGBACK: Type.String({
    default: 'tone_stream://%(1000,3000,400);loops=-1',
    pattern: '^\\S+$',
    description:
      "What a transfer's caller hears while the new leg rings, as FreeSWITCH's `playback` takes " +
      "it: Israel's ringback (400 Hz, 1 s on, 3 s off) by default.",
  }),
  DISCONNECT_EXTENSION: Type.String({
    default: 'voicegw_disconnect',
    pattern: '^[^\\s]+$',
    description: 'Where `disconnect` transfers the call (`uuid_transfer`).',
  }),
  DISCONNECT_DIALPLAN: Type.String({ default: 'XML', description: 'Dialplan of that extension.' }),
  DISCONNECT_CONTEXT: Type.String({
    default: 'default',
    description: 'Context of that extension.',
  }),
  PLAYBACK_CACHE_DIR: Type.String({
    default: '/tmp/voicegw-media',
    description: 'Where fetched audio is cached (a subdirectory per node, emptied at start).',
  }),
  PLAYBACK_FS_DIR: Type.Optional(
    Type.String({
      description:
        'The cache directory as FreeSWITCH sees it (a shared volume mounted elsewhere). Unset: ' +
        '`PLAYBACK_CACHE_DIR`.',
    }),
  ),
  PLAYBACK_CACHE_MAX_BYTES: Type.Integer({
    minimum: 1,
    default: 1024 ** 3,
    description: 'Size of the audio cache; least recently used files go first.',
  }),
  PLAYBACK_MAX_FILE_BYTES: Type.Integer({
    minimum: 1,
    default: 50 * 1024 ** 2,
    description: 'Largest audio file fetched; a larger one is "not found".',
  }),
  PLAYBACK_FETCH_TIMEOUT_MS: ms(
    10_000,
    100,
    'Timeout of one download (the command still fails after 2000 ms; the download fills the ' +
      'cache).',
  ),
  PLAYBACK_CACHE_TTL_SEC: Type.Integer({
    minimum: 0,
    default: 3600,
    description: 'How long a fetched file is reused when its response sets no `max-age`.',
  }),
  METRICS_PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 9464,
    description:
      'Port of `GET /metrics` (Prometheus) and `GET /health` (200 `ok`; 200 ' +
      '`dial_target_unusable` when the gateway `DIAL_STRING_TEMPLATE` dials is missing; 503 ' +
      'without FreeSWITCH); `0` disables it.',
  }),
  METRICS_HOST: Type.String({
    default: '0.0.0.0',
    description: 'Listen address of `/metrics` and `/health`.',
  }),
  RECORDING_MODE: RecordingModeEnv,
  RECORDING_SERVICE_URL: Type.Optional(
    Type.String({
      pattern: '^wss?://[^\\s]+$',
      description:
        "Stream mode: `ws://` base URL of this node's recording receiver as FreeSWITCH reaches " +
        'it (streams go to `<url>/<session id>/<recording id>`). Unset: no receiver; ' +
        '`record/start` fails. The api reads the same variable.',
    }),
  ),
  RECORDING_PORT: Type.Integer({
    minimum: 0,
    maximum: 65_535,
    default: 8095,
    description:
      'Port of the WebSocket server FreeSWITCH streams audio to: the recording receiver ' +
      '(stream mode) and media streams, which FreeSWITCH reaches at ' +
      '`ws://127.0.0.1:<port>/media/<stream id>`. `0`: any free port (media streams only: a ' +
      "recording's `RECORDING_SERVICE_URL` names the port).",
  }),
  RECORDING_HOST: Type.String({
    default: '0.0.0.0',
    description:
      'Listen address of that server; it must include 127.0.0.1 for media streams, which accept ' +
      'only connections from loopback.',
  }),
  ALLOW_LOCALHOST_WEBHOOKS: BooleanFlag(
    false,
    'Open media streams (`stream/start`) to URLs whose host is or resolves to a loopback, ' +
      'private, link-local or unique-local address. Checked when the stream connects, with the ' +
      'address it connects to; the api checks `url` with its own variable of the same name when ' +
      'it accepts the command: give both the same value.',
  ),
  RECORDINGS_DIR: Type.String({
    default: '/tmp/voicegw-recordings',
    description:
      'Where recordings are written (`<session id>/<recording id>.wav`); the api reads the same ' +
      'directory (a shared volume).',
  }),
  FS_RECORDINGS_DIR: Type.Optional(
    Type.String({
      pattern: '^/',
      description:
        'File mode: `RECORDINGS_DIR` as FreeSWITCH sees it (the same volume mounted elsewhere ' +
        'in its container); FreeSWITCH is told to write `<this>/<session id>/<recording id>.wav`. ' +
        'Unset: `RECORDINGS_DIR`.',
    }),
  ),
  RECORDING_RETENTION_HOURS: Type.Number({
    exclusiveMinimum: 0,
    default: 24,
    description:
      'How long a recording is kept after it stops (fractions allowed); then its URL answers ' +
      '404 and the sweeper deletes it.',
  }),
  RECORDING_SWEEP_INTERVAL_MS: ms(60_000, 50, 'How often expired recordings are deleted.'),
  REDIS_COMMAND_TIMEOUT_MS: ms(
    2000,
    50,
    'A Redis command without a reply in this time fails. What the node owes (events, results, ' +
      'acknowledgements) is then retried until Redis is back.',
  ),
  DRAIN_TIMEOUT_SEC: Type.Integer({
    minimum: 0,
    default: 300,
    description:
      'On SIGTERM, how long active calls may continue; the ones left are then hung up ' +
      '(`MANAGER_REQUEST`) and the node closes.',
  }),
});

export type MediaNodeConfig = WithRedisEndpoint<Static<typeof MediaNodeEnv>>;

export function loadMediaNodeConfig(env: NodeJS.ProcessEnv = process.env): MediaNodeConfig {
  // The loader reads an empty variable as unset; an empty password must not become the default.
  if (env.FS_ESL_PASSWORD === '') {
    throw new ConfigError([
      'FS_ESL_PASSWORD must not be empty (FreeSWITCH would silently accept ClueCon instead)',
    ]);
  }
  const config = withRedisEndpoint(loadConfig(MediaNodeEnv, env));
  // Two beats must fit in one TTL, or a single late beat makes the api drop the node's calls.
  if (config.HEARTBEAT_INTERVAL_MS * 2 > config.HEARTBEAT_TTL_MS) {
    throw new ConfigError(['HEARTBEAT_INTERVAL_MS must be at most half of HEARTBEAT_TTL_MS']);
  }
  return config;
}
