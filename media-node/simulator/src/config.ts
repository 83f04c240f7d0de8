// The simulator's environment, validated once at start into a typed, defaulted, frozen object.
// A bad value throws an error naming the variable. Nothing else in the simulator reads
// process.env. The descriptions are its documentation: `npm run config:doc` renders them into
// docs/simulator.md and docs/configuration.md.
import { CommonEnv, loadConfig } from '@voicegw/shared';
import { Type, type Static } from 'typebox';

const text = (fallback: string, description: string) =>
  Type.String({ default: fallback, pattern: '^\\S+$', description });

const port = (fallback: number, description: string) =>
  Type.Integer({ minimum: 0, maximum: 65_535, default: fallback, description });

export const SimEnv = Type.Object({
  SIM_ESL_HOST: text('127.0.0.1', 'Event socket bind address.'),
  SIM_ESL_PORT: port(8021, "Event socket port (FreeSWITCH's default; `0`: any free port)."),
  SIM_ESL_PASSWORD: text('ClueCon', 'Event socket `auth` password.'),
  SIM_HTTP_HOST: text('127.0.0.1', 'Control API bind address.'),
  SIM_HTTP_PORT: port(8090, 'Control API port.'),
  SIM_SIP_HOST: text(
    '127.0.0.1',
    'SIP trunk bind address (loopback: simulators on one machine call each other).',
  ),
  SIM_SIP_PORT: port(
    5080,
    "SIP trunk port (FreeSWITCH's external profile port; `0`: any free port).",
  ),
  SIM_HOSTNAME: text('sim-1', '`FreeSWITCH-Hostname` and `FreeSWITCH-Switchname` of every event.'),
  SIM_IPV4: text(
    '127.0.0.1',
    '`FreeSWITCH-IPv4` of every event, the conference domain and the host part of inbound ' +
      'channel names.',
  ),
  SIM_GATEWAYS: text(
    'pstn',
    'Comma-separated names of the sofia gateways it has, so that `sofia/gateway/<name>/…` ' +
      'dials work and `sofia status gateway <name>` answers as FreeSWITCH does.',
  ),
  LOG_LEVEL: CommonEnv.LOG_LEVEL,
});

export type SimConfig = Static<typeof SimEnv>;

export const loadSimConfig = (env: NodeJS.ProcessEnv = process.env): SimConfig =>
  loadConfig(SimEnv, env);
