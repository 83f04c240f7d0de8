import { createLogger, type Logger } from '@voicegw/shared';

/** One JSON log line as pino wrote it. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly time: string;
  readonly err?: { readonly message: string; readonly type: string };
  readonly [field: string]: unknown;
}

/** A debug-level logger whose lines a test reads back (what was logged, at which level). */
export function captureLogger(): { log: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const log = createLogger({
    name: 'test',
    level: 'debug',
    destination: { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) },
  });
  return { log, lines };
}
