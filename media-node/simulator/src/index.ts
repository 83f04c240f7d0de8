// The simulator as a library: `startSimulator()` starts the event socket, the control API and,
// when `sipPort` is given, the SIP trunk (port 0 picks free ports) and returns the ports and a
// `close()`.
import { createLogger, type Logger } from '@voicegw/shared';
import { SimSwitch } from './core/switch.js';
import { startEslServer } from './esl/server.js';
import { buildControlApp } from './control/app.js';

/** A WAV tone, for prompts served to the simulator (its playback reads the file's length). */
export { makeToneWav } from './media/wav.js';
/** Its environment's schema, which docs/configuration.md and docs/simulator.md are generated from. */
export { SimEnv } from './config.js';
/** mod_audio_stream's write buffer on a clock it is given (the benchmark's playout model). */
export { StreamWriter } from './media/stream-writer.js';

export interface SimulatorOptions {
  readonly eslHost?: string;
  readonly eslPort?: number;
  readonly password?: string;
  readonly httpHost?: string;
  readonly httpPort?: number;
  /** SIP trunk listener (another simulator's originate reaches this one there); unset: none. */
  readonly sipHost?: string;
  readonly sipPort?: number;
  readonly hostname?: string;
  readonly ipv4?: string;
  readonly heartbeatMs?: number;
  /** The sofia gateways it has (default `pstn`); a dial through another fails INVALID_GATEWAY. */
  readonly gateways?: readonly string[];
  readonly logger?: Logger;
}

export interface Simulator {
  readonly eslPort: number;
  readonly httpPort: number;
  /** Port of the SIP trunk listener, when one was asked for. */
  readonly sipPort: number | undefined;
  readonly password: string;
  /** http://host:port of the control API. */
  readonly controlUrl: string;
  close(): Promise<void>;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const log = options.logger ?? createLogger({ name: 'fs-sim', level: 'silent' });
  const password = options.password ?? 'ClueCon';
  const sw = new SimSwitch({
    hostname: options.hostname ?? 'sim-1',
    ipv4: options.ipv4 ?? '127.0.0.1',
    log,
    ...(options.heartbeatMs ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.gateways ? { gateways: options.gateways } : {}),
  });
  const esl = await startEslServer(sw, {
    host: options.eslHost ?? '127.0.0.1',
    port: options.eslPort ?? 8021,
    password,
    log,
  });
  const sipPort =
    options.sipPort === undefined
      ? undefined
      : await sw.trunk.listen(options.sipHost ?? '127.0.0.1', options.sipPort);
  const control = await buildControlApp(sw, log);
  const httpHost = options.httpHost ?? '127.0.0.1';
  await control.listen({ host: httpHost, port: options.httpPort ?? 8090 });
  const address = control.server.address();
  const httpPort = typeof address === 'object' && address ? address.port : 0;
  log.info({ eslPort: esl.port, httpPort, sipPort }, 'FreeSWITCH simulator ready');
  let closing: Promise<void> | undefined;
  return {
    eslPort: esl.port,
    httpPort,
    sipPort,
    password,
    controlUrl: `http://${httpHost}:${httpPort}`,
    close: () =>
      (closing ??= (async () => {
        sw.close();
        await sw.trunk.close();
        await esl.close();
        await control.close();
      })()),
  };
}
