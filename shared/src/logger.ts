import { pino, type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger };

export interface LoggerSettings {
  /** Process name, bound to every line as `proc`. */
  readonly name: string;
  readonly level: string;
  /** Pretty, human-readable lines (development only); JSON otherwise. */
  readonly pretty?: boolean;
  /** Where the JSON lines go (tests read them back); stdout by default. */
  readonly destination?: DestinationStream;
}

/** Header and field names whose values must never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers["x-api-key"]',
  'req.headers["x-admin-api-key"]',
  'req.headers.authorization',
  'api_key',
  'webhook_secret',
  '*.api_key',
  '*.webhook_secret',
];

export function createLogger(settings: LoggerSettings): Logger {
  const options: LoggerOptions = {
    name: settings.name,
    level: settings.level,
    base: { proc: settings.name },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  if (settings.pretty) {
    return pino({
      ...options,
      transport: { target: 'pino-pretty', options: { colorize: true, ignore: 'pid,hostname' } },
    });
  }
  // Written in the turn that logs. pino's default destination writes through libuv's thread
  // pool, whose completion wakes the event loop once more: at an ordinary call rate that was a
  // wake-up of the process for each line (or burst of lines) logged.
  return pino(options, settings.destination ?? pino.destination({ dest: 1, sync: true }));
}
