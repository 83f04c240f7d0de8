import { randomBytes } from 'node:crypto';
import { loadConfig } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

/** Environment of `npm start`, the all-in-one development launcher. */
export const LauncherEnv = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65_535, default: 8080 }),
  REDIS_URL: Type.Optional(Type.String({ pattern: '^rediss?://' })),
  ADMIN_API_KEY: Type.Optional(Type.String({ minLength: 16 })),
  DATA_DIR: Type.String({ default: '.data' }),
  SIM_HTTP_PORT: Type.Integer({ minimum: 1, maximum: 65_535, default: 8090 }),
  SIM_ESL_PORT: Type.Integer({ minimum: 1, maximum: 65_535, default: 8021 }),
  FS_ESL_HOST: Type.Optional(Type.String({ minLength: 1 })),
  FS_ESL_PORT: Type.Integer({ minimum: 1, maximum: 65_535, default: 8021 }),
  FS_ESL_PASSWORD: Type.String({ default: 'ClueCon' }),
  MEDIA_METRICS_PORT: Type.Integer({ minimum: 1, maximum: 65_535, default: 9464 }),
  RECORDING_PORT: Type.Integer({ minimum: 1, maximum: 65_535, default: 8095 }),
  DISPATCHER_METRICS_PORT: Type.Integer({ minimum: 1, maximum: 65_535, default: 9465 }),
  EVENT_BUS: Type.Union([Type.Literal('redis'), Type.Literal('kafka')], { default: 'redis' }),
  KAFKA_BROKERS: Type.Optional(Type.String({ minLength: 1 })),
  RECORDING_SERVICE_URL: Type.Optional(Type.String({ pattern: '^wss?://' })),
  RECORDING_MODE: Type.Union([Type.Literal('file'), Type.Literal('stream')], { default: 'file' }),
});
export type LauncherConfig = Static<typeof LauncherEnv>;

export const loadLauncherConfig = (): LauncherConfig => loadConfig(LauncherEnv, process.env);

export const generateAdminKey = (): string => `dev-admin-${randomBytes(12).toString('hex')}`;

/** A child's environment: the launcher's own, with the given variables on top. */
export const childEnv = (vars: Record<string, string>): NodeJS.ProcessEnv => ({
  ...process.env,
  ...vars,
});
