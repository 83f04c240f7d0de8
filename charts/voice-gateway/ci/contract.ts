// What the chart promises each process: the environment variables it may set are the ones the
// process's own schema declares (the schemas docs/configuration.md and docs/media-node.md are
// tested against), and the variables the chart derives itself are not offered in `env`.
import { ApiEnv, DispatcherEnv, loadApiConfig, loadDispatcherConfig } from '@voicegw/api';
import { loadMediaNodeConfig, MediaNodeEnv } from '@voicegw/media-node';

/** The JSON Schema of one variable, as a typebox schema is at runtime. */
export interface VariableSchema {
  readonly type?: string;
  readonly anyOf?: readonly { readonly const?: unknown }[];
  readonly description?: string;
  readonly default?: unknown;
  readonly [keyword: string]: unknown;
}

export interface ProcessContract {
  /** Key under which values.yaml configures the process (`<key>.env`). */
  readonly valuesKey: 'api' | 'mediaNode' | 'dispatcher';
  /** Rendered workload and container that run it. */
  readonly kind: 'Deployment' | 'StatefulSet';
  readonly component: string;
  readonly container: string;
  /** The document that lists its variables. */
  readonly doc: string;
  readonly variables: Readonly<Record<string, VariableSchema>>;
  /** Set by the chart from structured values; not accepted in `env`. */
  readonly managed: readonly string[];
  /** Left unset on purpose, and not accepted in `env` either. */
  readonly withheld: readonly string[];
  /** Its service in charts/compose/docker-compose.yml. */
  readonly composeService: string;
  /** The process's own configuration loader: throws on a value it would refuse at start. */
  readonly load: (env: NodeJS.ProcessEnv) => unknown;
}

const REDIS = [
  'REDIS_URL',
  'REDIS_SENTINELS',
  'REDIS_SENTINEL_NAME',
  'REDIS_USERNAME',
  'REDIS_PASSWORD',
  'REDIS_SENTINEL_USERNAME',
  'REDIS_SENTINEL_PASSWORD',
  'REDIS_PREFIX',
];
/** Logs are JSON lines for the cluster's collector; pino-pretty is not in the images. */
const WITHHELD = ['LOG_PRETTY'];

/** A typebox object schema's properties, read as plain JSON Schema. */
const variablesOf = (schema: { readonly properties: object }): Record<string, VariableSchema> =>
  schema.properties as Record<string, VariableSchema>;

export const PROCESSES: ProcessContract[] = [
  {
    valuesKey: 'api',
    kind: 'Deployment',
    component: 'api',
    container: 'api',
    doc: 'docs/configuration.md',
    variables: variablesOf(ApiEnv),
    managed: [
      ...REDIS,
      'HOST',
      'PORT',
      'ADMIN_API_KEY',
      'RECORDING_MODE',
      'RECORDING_SERVICE_URL',
      'RECORDINGS_DIR',
    ],
    withheld: WITHHELD,
    composeService: 'api',
    load: loadApiConfig,
  },
  {
    valuesKey: 'mediaNode',
    kind: 'StatefulSet',
    component: 'media-node',
    container: 'media-node',
    doc: 'docs/media-node.md',
    variables: variablesOf(MediaNodeEnv),
    managed: [
      ...REDIS,
      'NODE_NAME',
      'FS_ESL_HOST',
      'FS_ESL_PORT',
      'FS_ESL_PASSWORD',
      'METRICS_HOST',
      'METRICS_PORT',
      'DRAIN_TIMEOUT_SEC',
      'PLAYBACK_CACHE_DIR',
      'RECORDING_MODE',
      'RECORDING_SERVICE_URL',
      'RECORDING_HOST',
      'RECORDING_PORT',
      'RECORDINGS_DIR',
    ],
    // FreeSWITCH mounts the audio cache and the recordings at the same paths, so
    // PLAYBACK_FS_DIR and FS_RECORDINGS_DIR stay unset.
    withheld: [...WITHHELD, 'PLAYBACK_FS_DIR', 'FS_RECORDINGS_DIR'],
    composeService: 'media-node',
    load: loadMediaNodeConfig,
  },
  {
    valuesKey: 'dispatcher',
    kind: 'Deployment',
    component: 'dispatcher',
    container: 'dispatcher',
    doc: 'docs/configuration.md',
    variables: variablesOf(DispatcherEnv),
    managed: [...REDIS, 'EVENT_BUS', 'KAFKA_BROKERS', 'DISPATCHER_HOST', 'DISPATCHER_METRICS_PORT'],
    withheld: WITHHELD,
    composeService: 'dispatcher',
    load: loadDispatcherConfig,
  },
];

/** The FreeSWITCH simulator (engine `simulator`): its variables are those of docs/simulator.md. */
export const SIMULATOR = {
  component: 'media-node',
  container: 'simulator',
  doc: 'docs/simulator.md',
};
