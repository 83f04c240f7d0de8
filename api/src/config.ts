import {
  BooleanFlag,
  CommonEnv,
  loadConfig,
  RecordingModeEnv,
  withRedisEndpoint,
  type WithRedisEndpoint,
} from '@voicegw/shared';
import { Type, type Static } from 'typebox';

/**
 * Environment of the api process. The descriptions are its documentation: `npm run config:doc`
 * renders them into docs/configuration.md.
 */
export const ApiEnv = Type.Object({
  ...CommonEnv,
  PORT: Type.Integer({ minimum: 0, maximum: 65_535, default: 8080, description: 'HTTP port.' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'HTTP listen address.' }),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 16,
      description:
        'Server-level admin key. Unset: every `/admin` endpoint answers 503 `Admin API not ' +
        'configured`.',
    }),
  ),
  ALLOW_HTTP_WEBHOOKS: BooleanFlag(
    false,
    'Accept `http://` webhook URLs and `ws://` media stream URLs; otherwise `https://` and ' +
      '`wss://` are required.',
  ),
  ALLOW_LOCALHOST_WEBHOOKS: BooleanFlag(
    false,
    'Accept webhook and media stream URLs that are or resolve to loopback, private, link-local ' +
      'or unique-local addresses.',
  ),
  RECORDING_MODE: RecordingModeEnv,
  RECORDING_SERVICE_URL: Type.Optional(
    Type.String({
      pattern: '^wss?://',
      description:
        "`ws://` base URL of the recording receiver: the media node's, as FreeSWITCH reaches it " +
        '(the media node reads the same variable). Unset in stream mode: `record/start` answers ' +
        '503 `Recording not available`.',
    }),
  ),
  RECORDINGS_DIR: Type.String({
    default: '/tmp/voicegw-recordings',
    description:
      'Where recordings are: a volume shared with the media nodes and, in file mode, their ' +
      'FreeSWITCH. `GET …/recording/*.wav` reads them here.',
  }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description:
        'Public address of the api: `recording_url` is this + ' +
        '`/api/v1/sessions/{uuid}/recording/{recording_id}.wav`. The api announces it in Redis, ' +
        'where the media nodes read it. Unset: `http://127.0.0.1:<PORT>`.',
    }),
  ),
  TRUST_PROXY: BooleanFlag(
    false,
    'Take the client IP (rate limits) from `X-Forwarded-For`; set it behind a load balancer.',
  ),
  APP_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 1000,
    description:
      'How long app configuration is cached in process. Changes are also pushed over Redis ' +
      'pub/sub, so a deleted app stops authenticating at once.',
  }),
  RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Authenticated requests per app and client IP per 1 s window.',
  }),
  RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'Requests that fail authentication, per client IP per 1 s window.',
  }),
  COMMAND_UID_TTL_SEC: Type.Integer({
    minimum: 60,
    default: 86_400,
    description:
      'How long a `command_uid` is remembered, so a retried command answers its original 202 ' +
      'and is not executed twice.',
  }),
  RECENT_ERRORS_MAX: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 200,
    description: 'How many server-side errors `GET /admin/recent-errors` keeps.',
  }),
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({
    minimum: 50,
    default: 1000,
    description:
      'A Redis command slower than this fails its request with a 5xx instead of hanging it.',
  }),
});

export type ApiConfig = WithRedisEndpoint<Static<typeof ApiEnv>>;

/** The base of the URLs the api hands out (recording_url): PUBLIC_BASE_URL, without a trailing /. */
export const publicBaseUrl = (config: ApiConfig): string =>
  (config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig =>
  withRedisEndpoint(loadConfig(ApiEnv, env));
