import { BooleanFlag, CommonEnv, loadConfig, RecordingModeEnv } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

/** Environment of the api process. docs/configuration.md lists the same variables. */
export const ApiEnv = Type.Object({
  ...CommonEnv,
  PORT: Type.Integer({ minimum: 0, maximum: 65_535, default: 8080, description: 'HTTP port.' }),
  HOST: Type.String({ default: '0.0.0.0', description: 'HTTP listen address.' }),
  ADMIN_API_KEY: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'Server-level admin key. Unset: every admin endpoint answers 503.',
    }),
  ),
  ALLOW_HTTP_WEBHOOKS: BooleanFlag(false, 'Accept http:// webhook URLs (otherwise https only).'),
  ALLOW_LOCALHOST_WEBHOOKS: BooleanFlag(
    false,
    'Accept webhook URLs that resolve to loopback or private ranges.',
  ),
  RECORDING_MODE: RecordingModeEnv,
  RECORDING_SERVICE_URL: Type.Optional(
    Type.String({
      pattern: '^wss?://',
      description:
        'ws:// base URL of the recording receiver (the media node reads the same variable). ' +
        'Unset in stream mode: record/start answers 503.',
    }),
  ),
  RECORDINGS_DIR: Type.String({
    default: '/tmp/voicegw-recordings',
    description:
      'Where the media nodes write recordings (a shared volume); recordings are read here.',
  }),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://[^\\s]+$',
      description:
        'Public address of the api, the base of recording_url. Default http://127.0.0.1:<PORT>.',
    }),
  ),
  TRUST_PROXY: BooleanFlag(false, 'Take the client IP from X-Forwarded-For (behind a proxy).'),
  APP_CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 1000,
    description: 'How long app configuration is cached in process (invalidated over pub/sub).',
  }),
  RATE_LIMIT_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 10_000,
    description: 'Authenticated requests per app and client IP per 1 s window.',
  }),
  RATE_LIMIT_UNAUTHENTICATED_PER_SECOND: Type.Integer({
    minimum: 1,
    default: 10,
    description: 'Unauthenticated requests per client IP per 1 s window.',
  }),
  COMMAND_UID_TTL_SEC: Type.Integer({
    minimum: 60,
    default: 86_400,
    description: 'How long a command_uid is remembered for idempotent replays.',
  }),
  RECENT_ERRORS_MAX: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 200,
    description: 'How many server-side errors /admin/recent-errors keeps.',
  }),
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({
    minimum: 50,
    default: 1000,
    description: 'A Redis command that takes longer fails the request (5xx) instead of hanging it.',
  }),
});

export type ApiConfig = Static<typeof ApiEnv>;

/** The base of the URLs the api hands out (recording_url): PUBLIC_BASE_URL, without a trailing /. */
export const publicBaseUrl = (config: ApiConfig): string =>
  (config.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config.PORT}`).replace(/\/+$/, '');

export const loadApiConfig = (env: NodeJS.ProcessEnv = process.env): ApiConfig =>
  loadConfig(ApiEnv, env);
