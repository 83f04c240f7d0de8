import { Type } from 'typebox';
import { RedisEnv } from './redis.js';

/** Boolean flags accept the spellings operators actually write. */
export const BooleanFlag = (fallback: boolean, description: string) =>
  Type.Boolean({ default: fallback, description });

/** Environment shared by every process that talks to Redis and logs. */
export const CommonEnv = {
  ...RedisEnv,
  REDIS_PREFIX: Type.String({
    default: 'vg',
    pattern: '^[a-zA-Z0-9_:-]{1,32}$',
    description:
      'Prefix of every Redis key, so several gateways (or test runs) can share one Redis; the ' +
      'processes of one gateway must all have the same.',
  }),
  LOG_LEVEL: Type.Union(
    ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l)),
    { default: 'info', description: 'Log level (pino).' },
  ),
  LOG_PRETTY: BooleanFlag(false, 'Human-readable log lines instead of JSON (development).'),
  SHUTDOWN_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    default: 10_000,
    description:
      'On SIGTERM or SIGINT, how long closing may take (a media node closes after its drain): ' +
      'work still waiting then, for Redis above all, is abandoned and the process exits (code 1). ' +
      'A signal while closing changes nothing.',
  }),
} as const;

/**
 * How recordings are made, read by the api (which answers 503 when stream mode has no receiver)
 * and the media node: `file` (FreeSWITCH's own uuid_record, into the shared recordings volume),
 * `stream` (mod_audio_stream to the node's receiver) or `off` (no recordings volume).
 */
export const RecordingModeEnv = Type.Union(
  [Type.Literal('file'), Type.Literal('stream'), Type.Literal('off')],
  {
    default: 'file',
    description:
      'How recordings are made; give the api and the media nodes the same value. `file`: ' +
      'FreeSWITCH records the call itself (`uuid_record`, any FreeSWITCH) into the recordings ' +
      'volume it shares with its media node. `stream`: it streams the audio to the media ' +
      "node's receiver (mod_audio_stream, a third-party module; needs `RECORDING_SERVICE_URL`). " +
      '`off`: `record/start` answers 503 `Recording not available`.',
  },
);
