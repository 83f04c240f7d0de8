// The renderings the check lints, templates and validates, and the bad values it expects
// values.schema.json to refuse (each with the words helm must print).
import type { FreeswitchExpectation, GatewaySettings } from './freeswitch-config.js';
import { CHART } from './helm.js';

export interface RenderCase {
  readonly name: string;
  readonly args: readonly string[];
  /** What the rendered FreeSWITCH configuration must say (a real FreeSWITCH only). */
  readonly freeswitch?: FreeswitchExpectation;
}

/** The one value a default install must add: the SIP trunk the default dial template dials. */
const TRUNK = ['--set', 'freeswitch.trunk.proxy=sip.carrier.example:5060'] as const;

/** One sentinel and the primary's name: Redis through Sentinel, with the trunk. */
const ONE_SENTINEL = [
  ...TRUNK,
  '--set',
  'redis.sentinel.addresses={sentinel-0.redis:26379}',
  '--set',
  'redis.sentinel.name=voicegw',
] as const;

/** The gateway the values of TRUNK alone become (the other settings' defaults). */
const TRUNK_GATEWAY: GatewaySettings = {
  proxy: 'sip.carrier.example:5060',
  realm: '',
  username: '',
  password: '',
  register: 'false',
  'caller-id-in-from': 'true',
  'from-domain': '',
};

/** A trunk with every setting given (`--set freeswitch.trunk.*`), as the gateway shows it. */
const FULL_TRUNK_GATEWAY: GatewaySettings = {
  proxy: 'sip.carrier.example:5060',
  realm: 'carrier.example',
  username: 'voicegw',
  password: 'secret',
  register: 'true',
  'caller-id-in-from': 'false',
  'from-domain': 'voicegw.example',
};

/** The chart's defaults: 100 new channels a second, twice CAPACITY (500) at once. */
const DEFAULT_SESSIONS = { sessionsPerSecond: 100, maxSessions: 1000 } as const;

export const RENDERS: readonly RenderCase[] = [
  {
    name: 'default values and a SIP trunk',
    args: TRUNK,
    freeswitch: {
      ...DEFAULT_SESSIONS,
      trunk: { name: 'pstn', settings: TRUNK_GATEWAY },
      recordingMode: 'off',
      mediaStreams: false,
    },
  },
  {
    name: 'a registering trunk with every setting, sized sessions',
    args: [
      ...TRUNK,
      '--set',
      'freeswitch.trunk.realm=carrier.example',
      '--set',
      'freeswitch.trunk.register=true',
      '--set',
      'freeswitch.trunk.username=voicegw',
      '--set',
      'freeswitch.trunk.password=secret',
      '--set',
      'freeswitch.trunk.callerIdInFrom=false',
      '--set',
      'freeswitch.trunk.fromDomain=voicegw.example',
      '--set',
      'freeswitch.sessionsPerSecond=250',
      '--set',
      'freeswitch.maxSessions=3000',
    ],
    freeswitch: {
      sessionsPerSecond: 250,
      maxSessions: 3000,
      trunk: { name: 'pstn', settings: FULL_TRUNK_GATEWAY },
      recordingMode: 'off',
      mediaStreams: false,
    },
  },
  {
    name: 'no gateway in the dial template, no trunk',
    args: [
      '--set-string',
      'mediaNode.env.DIAL_STRING_TEMPLATE=sofia/external/{to}@sbc.example:5060',
    ],
    freeswitch: { ...DEFAULT_SESSIONS, recordingMode: 'off', mediaStreams: false },
  },
  // Recording as installed by default: FreeSWITCH records into the volume itself.
  {
    name: 'recordings in file mode',
    args: [...TRUNK, '--set', 'recordings.enabled=true'],
    freeswitch: {
      ...DEFAULT_SESSIONS,
      trunk: { name: 'pstn', settings: TRUNK_GATEWAY },
      recordingMode: 'file',
      mediaStreams: false,
    },
  },
  // mod_audio_stream is loaded for either of its users, alone or together.
  {
    name: 'recordings in stream mode',
    args: [...TRUNK, '--set', 'recordings.enabled=true', '--set', 'recordings.mode=stream'],
    freeswitch: {
      ...DEFAULT_SESSIONS,
      trunk: { name: 'pstn', settings: TRUNK_GATEWAY },
      recordingMode: 'stream',
      mediaStreams: false,
    },
  },
  {
    name: 'media streams beside recordings in file mode',
    args: [...TRUNK, '--set', 'recordings.enabled=true', '--set', 'mediaStreams.enabled=true'],
    freeswitch: {
      ...DEFAULT_SESSIONS,
      trunk: { name: 'pstn', settings: TRUNK_GATEWAY },
      recordingMode: 'file',
      mediaStreams: true,
    },
  },
  {
    name: 'values-production.example.yaml',
    args: ['-f', `${CHART}values-production.example.yaml`],
    // The trunk's password is in the Secret the example names, which the chart does not render.
    freeswitch: {
      sessionsPerSecond: 200,
      maxSessions: 800,
      trunk: {
        name: 'pstn',
        settings: {
          proxy: 'sip.carrier.example.com:5060',
          realm: 'sip.carrier.example.com',
          username: 'voicegw',
          register: 'true',
          'caller-id-in-from': 'true',
          'from-domain': 'sip.carrier.example.com',
        },
      },
      recordingMode: 'stream',
      mediaStreams: true,
    },
  },
  // The sandbox: the simulator instead of FreeSWITCH, monitoring on, the dispatcher on Kafka.
  {
    name: 'simulator engine, Kafka bus, monitoring',
    args: [
      '--set',
      'freeswitch.engine=simulator',
      '--set',
      'eventBus.type=kafka',
      '--set',
      'eventBus.kafka.brokers={kafka-0.kafka:9092,kafka-1.kafka:9092}',
      '--set',
      'metrics.serviceMonitor.enabled=true',
      '--set',
      'metrics.prometheusRule.enabled=true',
      '--set',
      'api.autoscaling.enabled=false',
      '--set',
      'secrets.existingSecret=voicegw-secrets',
    ],
  },
  // Redis through Sentinel, with both passwords in the chart's Secret, then in an existing one.
  {
    name: 'Redis through Sentinel',
    args: [
      ...TRUNK,
      '--set',
      'redis.sentinel.addresses={sentinel-0.redis:26379,sentinel-1.redis:26379,[fd00::7]:26379}',
      '--set',
      'redis.sentinel.name=voicegw',
      '--set',
      'redis.sentinel.password=sentinel-secret',
      '--set',
      'redis.password=redis-secret',
    ],
  },
  {
    name: 'Redis through Sentinel as ACL users',
    args: [
      ...ONE_SENTINEL,
      '--set',
      'redis.sentinel.username=watcher',
      '--set',
      'redis.sentinel.password=sentinel-secret',
      '--set',
      'redis.username=gateway',
      '--set',
      'redis.password=redis-secret',
    ],
  },
  {
    name: 'Redis through Sentinel, passwords in an existing Secret',
    args: [...ONE_SENTINEL, '--set', 'secrets.existingSecret=voicegw-secrets'],
  },
];

/** charts/compose with a charts/compose/.env as an operator writes it (its README). */
export interface ComposeCase {
  readonly name: string;
  readonly env: Readonly<Record<string, string>>;
  /** `mediaStreams` is what charts/compose/freeswitch-values.yaml says (composeMediaStreams). */
  readonly freeswitch: Omit<FreeswitchExpectation, 'mediaStreams'>;
}

export const COMPOSE_CASES: readonly ComposeCase[] = [
  {
    name: 'a trunk given by its proxy alone',
    env: { TRUNK_PROXY: 'sip.carrier.example:5060' },
    freeswitch: {
      ...DEFAULT_SESSIONS,
      trunk: { name: 'pstn', settings: TRUNK_GATEWAY },
      recordingMode: 'file',
    },
  },
  {
    name: 'a registering trunk with every setting',
    env: {
      TRUNK_PROXY: 'sip.carrier.example:5060',
      TRUNK_REALM: 'carrier.example',
      TRUNK_USERNAME: 'voicegw',
      TRUNK_PASSWORD: 'secret',
      TRUNK_REGISTER: 'true',
      TRUNK_CALLER_ID_IN_FROM: 'false',
      TRUNK_FROM_DOMAIN: 'voicegw.example',
      ESL_PASSWORD: 'laptop-secret',
    },
    freeswitch: {
      ...DEFAULT_SESSIONS,
      trunk: { name: 'pstn', settings: FULL_TRUNK_GATEWAY },
      recordingMode: 'file',
    },
  },
];

export interface RejectCase {
  readonly name: string;
  readonly args: readonly string[];
  /** Every one of these must appear in helm's error output. */
  readonly expect: readonly string[];
}

export const REJECTS: readonly RejectCase[] = [
  {
    name: 'a negative replica count',
    args: [...TRUNK, '--set', 'api.replicas=-1'],
    expect: ['api.replicas: Must be greater than or equal to 1'],
  },
  {
    name: 'a string where an integer belongs',
    args: [...TRUNK, '--set-string', 'mediaNode.drainTimeoutSec=five'],
    expect: ['mediaNode.drainTimeoutSec: Invalid type. Expected: integer, given: string'],
  },
  {
    name: 'a misspelt key',
    args: [...TRUNK, '--set', 'api.replcas=3'],
    expect: ['api: Additional property replcas is not allowed'],
  },
  {
    name: 'an undocumented environment variable',
    args: [...TRUNK, '--set', 'mediaNode.env.NODE_CAPACITY=10'],
    expect: ['mediaNode.env: Additional property NODE_CAPACITY is not allowed'],
  },
  {
    name: 'a variable the chart sets itself',
    args: [...TRUNK, '--set', 'api.env.REDIS_URL=redis://elsewhere:6379'],
    expect: ['api.env: Additional property REDIS_URL is not allowed'],
  },
  {
    name: "a value the process's own schema refuses",
    args: [...TRUNK, '--set', 'api.env.APP_CACHE_TTL_MS=5000'],
    expect: ['api.env.APP_CACHE_TTL_MS: Must be less than or equal to 1000'],
  },
  {
    name: 'a sentinel address without its port',
    args: [
      ...TRUNK,
      '--set',
      'redis.sentinel.addresses={sentinel-0.redis}',
      '--set',
      'redis.sentinel.name=voicegw',
    ],
    expect: ['redis.sentinel.addresses.0: Does not match pattern'],
  },
  {
    name: 'the Kafka bus without brokers',
    args: [...TRUNK, '--set', 'eventBus.type=kafka'],
    expect: ['eventBus.kafka.brokers: Array must have at least 1 items'],
  },
  // Relations between values, which the templates check (`fail`).
  {
    name: 'a PDB that would block every node drain',
    args: [...TRUNK, '--set', 'api.pdb.minAvailable=2'],
    expect: ["api.pdb.minAvailable (2) must be below the api's replicas (2)"],
  },
  {
    name: 'an HPA whose maximum is below its minimum',
    args: [...TRUNK, '--set', 'api.autoscaling.maxReplicas=1'],
    expect: ['api.autoscaling.maxReplicas (1) must not be below minReplicas (2)'],
  },
  {
    name: 'an empty RTP port range',
    args: [...TRUNK, '--set', 'freeswitch.rtp.startPort=40000'],
    expect: ['freeswitch.rtp.startPort (40000) must be below endPort (32768)'],
  },
  {
    name: 'an unknown FreeSWITCH engine',
    args: [...TRUNK, '--set', 'freeswitch.engine=asterisk'],
    expect: ['freeswitch.engine: freeswitch.engine must be one of the following'],
  },
  {
    name: "sentinels without the primary's name",
    args: [...TRUNK, '--set', 'redis.sentinel.addresses={sentinel-0.redis:26379}'],
    expect: ['redis.sentinel.name is required with redis.sentinel.addresses'],
  },
  {
    name: 'a Redis password beside the URL',
    args: [...TRUNK, '--set', 'redis.password=secret'],
    expect: ['redis.password is read with redis.sentinel.addresses only'],
  },
  {
    name: 'a Redis user beside the URL',
    args: [...TRUNK, '--set', 'redis.username=gateway'],
    expect: ['redis.username is read with redis.sentinel.addresses only'],
  },
  // The FreeSWITCH configuration: dialing needs its trunk, under the name the template dials.
  {
    name: 'dialing through the default gateway without a SIP trunk',
    args: [],
    expect: [
      'freeswitch.trunk.proxy is required: DIAL_STRING_TEMPLATE (sofia/gateway/pstn/{to}) dials through the sofia gateway pstn',
    ],
  },
  {
    name: 'a trunk under another name than the dial template dials',
    args: [...TRUNK, '--set', 'freeswitch.trunk.name=carrier'],
    expect: ['freeswitch.trunk.name (carrier) must be pstn'],
  },
  {
    name: 'a registering trunk without credentials',
    args: [...TRUNK, '--set', 'freeswitch.trunk.register=true'],
    expect: ['freeswitch.trunk.register needs freeswitch.trunk.username'],
  },
  {
    name: 'sessions-per-second of 0',
    args: [...TRUNK, '--set', 'freeswitch.sessionsPerSecond=0'],
    expect: ['freeswitch.sessionsPerSecond: Must be greater than or equal to 1'],
  },
  {
    name: 'a trunk password that would break the XML',
    args: [...TRUNK, '--set', 'freeswitch.trunk.password=a<b'],
    expect: ['freeswitch.trunk.password: Does not match pattern'],
  },
];
