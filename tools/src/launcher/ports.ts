import { createServer } from 'node:net';
import type { LauncherConfig } from './config.js';

/** A port `npm start` listens on, what listens there, and the variable that moves it. */
export interface LauncherPort {
  readonly variable: keyof LauncherConfig;
  readonly what: string;
  readonly port: number;
}

/** Every port the gateway will listen on, given the configuration (port 0: any, not checked). */
export function launcherPorts(config: LauncherConfig, simulated: boolean): LauncherPort[] {
  const ports: LauncherPort[] = [
    { variable: 'PORT', what: 'the api', port: config.PORT },
    {
      variable: 'MEDIA_METRICS_PORT',
      what: "the media node's metrics",
      port: config.MEDIA_METRICS_PORT,
    },
    {
      variable: 'RECORDING_PORT',
      what: "the media node's recording receiver",
      port: config.RECORDING_PORT,
    },
    {
      variable: 'DISPATCHER_METRICS_PORT',
      what: "the dispatcher's metrics",
      port: config.DISPATCHER_METRICS_PORT,
    },
  ];
  if (simulated) {
    ports.push(
      { variable: 'SIM_ESL_PORT', what: "the simulator's event socket", port: config.SIM_ESL_PORT },
      {
        variable: 'SIM_HTTP_PORT',
        what: "the simulator's control API",
        port: config.SIM_HTTP_PORT,
      },
      { variable: 'SIM_SIP_PORT', what: "the simulator's SIP trunk", port: config.SIM_SIP_PORT },
    );
  }
  return ports.filter((p) => p.port !== 0);
}

/** Whether another process holds `port` on the loopback address the gateway binds. */
function taken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(true));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () =>
      probe.close(() => resolve(false)),
    );
  });
}

/** The ports of `ports` that another process holds, in order. */
export async function takenPorts(ports: readonly LauncherPort[]): Promise<LauncherPort[]> {
  const held = await Promise.all(ports.map((p) => taken(p.port)));
  return ports.filter((_, i) => held[i]);
}

/** What the developer reads: which port, whose, and the variable that moves it. */
export function portTakenMessage({ port, what, variable }: LauncherPort): string {
  return `port ${port} (${what}) is already in use by another process: set ${variable} to a free port, e.g. ${variable}=${port + 1} npm start`;
}
