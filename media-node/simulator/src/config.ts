// The simulator's environment, validated once at start into a typed, defaulted, frozen object.
// A bad value throws an error naming the variable. Nothing else in the simulator reads
// process.env.

export interface SimConfig {
  /** Event socket bind address. */
  readonly SIM_ESL_HOST: string;
  /** Event socket port (FreeSWITCH's default 8021; 0 picks a free port). */
  readonly SIM_ESL_PORT: number;
  /** Event socket password. */
  readonly SIM_ESL_PASSWORD: string;
  /** Control API bind address. */
  readonly SIM_HTTP_HOST: string;
  /** Control API port. */
  readonly SIM_HTTP_PORT: number;
  /** SIP trunk bind address (loopback: simulators on one machine call each other). */
  readonly SIM_SIP_HOST: string;
  /** SIP trunk port (FreeSWITCH's external profile listens on 5080; 0 picks a free port). */
  readonly SIM_SIP_PORT: number;
  /** FreeSWITCH-Hostname / FreeSWITCH-Switchname of every event. */
  readonly SIM_HOSTNAME: string;
  /** FreeSWITCH-IPv4 of every event and the host part of inbound channel names. */
  readonly SIM_IPV4: string;
  /** Comma-separated names of the sofia gateways it has (sofia/gateway/<name>/…). */
  readonly SIM_GATEWAYS: string;
  readonly LOG_LEVEL: string;
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

const DEFAULTS: SimConfig = {
  SIM_ESL_HOST: '127.0.0.1',
  SIM_ESL_PORT: 8021,
  SIM_ESL_PASSWORD: 'ClueCon',
  SIM_HTTP_HOST: '127.0.0.1',
  SIM_HTTP_PORT: 8090,
  SIM_SIP_HOST: '127.0.0.1',
  SIM_SIP_PORT: 5080,
  SIM_HOSTNAME: 'sim-1',
  SIM_IPV4: '127.0.0.1',
  SIM_GATEWAYS: 'pstn',
  LOG_LEVEL: 'info',
};

export function loadSimConfig(env: NodeJS.ProcessEnv = process.env): SimConfig {
  const problems: string[] = [];
  const pick = (name: keyof SimConfig): string | undefined => {
    const v = env[name];
    return v === undefined || v === '' ? undefined : v;
  };
  type PortName = 'SIM_ESL_PORT' | 'SIM_HTTP_PORT' | 'SIM_SIP_PORT';
  const port = (name: PortName): number => {
    const raw = pick(name);
    if (raw === undefined) return DEFAULTS[name];
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n > 65535)
      problems.push(`${name} must be a port number 0-65535, got "${raw}"`);
    return n;
  };
  const text = (name: Exclude<keyof SimConfig, PortName>): string => {
    const raw = pick(name);
    if (raw === undefined) return DEFAULTS[name];
    if (/\s/.test(raw)) problems.push(`${name} must not contain whitespace`);
    return raw;
  };
  const config: SimConfig = {
    SIM_ESL_HOST: text('SIM_ESL_HOST'),
    SIM_ESL_PORT: port('SIM_ESL_PORT'),
    SIM_ESL_PASSWORD: text('SIM_ESL_PASSWORD'),
    SIM_HTTP_HOST: text('SIM_HTTP_HOST'),
    SIM_HTTP_PORT: port('SIM_HTTP_PORT'),
    SIM_SIP_HOST: text('SIM_SIP_HOST'),
    SIM_SIP_PORT: port('SIM_SIP_PORT'),
    SIM_HOSTNAME: text('SIM_HOSTNAME'),
    SIM_IPV4: text('SIM_IPV4'),
    SIM_GATEWAYS: text('SIM_GATEWAYS'),
    LOG_LEVEL: text('LOG_LEVEL'),
  };
  if (!LEVELS.includes(config.LOG_LEVEL)) {
    problems.push(`LOG_LEVEL must be one of ${LEVELS.join(', ')}, got "${config.LOG_LEVEL}"`);
  }
  if (problems.length > 0) {
    throw new Error(`Invalid simulator configuration:\n  ${problems.join('\n  ')}`);
  }
  return Object.freeze(config);
}
