// Real processes for process faults (kill -9 of a media node or of FreeSWITCH): a media node or a
// simulator run as a child process, its JSON log lines kept for the test to await.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { inject } from 'vitest';
import { SimControl, TEST_NODE_ENV } from './harness.js';

export type LogLine = Record<string, unknown>;

const entry = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

/** A child process (`node --import tsx <entry>`) whose JSON log lines on stdout are kept. */
export class LoggedProcess {
  readonly lines: LogLine[] = [];
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  private waiters: { match: (line: LogLine) => boolean; resolve: (line: LogLine) => void }[] = [];

  constructor(entrypoint: string, env: Record<string, string>) {
    this.child = spawn(process.execPath, ['--import', 'tsx', entrypoint], {
      env: { ...process.env, LOG_PRETTY: 'false', ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    createInterface({ input: this.child.stdout! }).on('line', (text) => this.push(text));
  }

  /** The first log line (already seen or still to come) that matches. */
  waitFor(
    match: (line: LogLine) => boolean,
    timeoutMs = 15_000,
    what = 'log line',
  ): Promise<LogLine> {
    const seen = this.lines.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${what} not seen in time`)), timeoutMs);
      this.waiters.push({
        match,
        resolve: (line) => {
          clearTimeout(timer);
          resolve(line);
        },
      });
    });
  }

  /** Kill -9: no goodbye, nothing flushed, nothing acknowledged. */
  async kill(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  /** SIGINT (stop at once), and kill -9 if that has not ended it within 5 s: nothing is left. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill('SIGINT');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(timer);
  }

  private push(text: string): void {
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      return; // not a log line
    }
    this.lines.push(line);
    const ready = this.waiters.filter((w) => w.match(line));
    this.waiters = this.waiters.filter((w) => !ready.includes(w));
    for (const waiter of ready) waiter.resolve(line);
  }
}

/**
 * The FreeSWITCH simulator as a process of its own, its event socket on `eslPort` and its SIP
 * trunk on `sipPort` (any free one by default: `sipPort` in the result).
 */
export async function startSimulatorProcess(
  eslPort: number,
  sipPort = 0,
): Promise<{ process: LoggedProcess; control: SimControl; sipPort: number }> {
  const sim = new LoggedProcess(entry('../../simulator/src/main.ts'), {
    LOG_LEVEL: 'info',
    SIM_ESL_PORT: String(eslPort),
    SIM_HTTP_PORT: '0',
    SIM_SIP_PORT: String(sipPort),
  });
  const ready = await sim.waitFor((l) => l.msg === 'FreeSWITCH simulator ready');
  return {
    process: sim,
    control: new SimControl(`http://127.0.0.1:${String(ready.httpPort)}`),
    sipPort: Number(ready.sipPort),
  };
}

/** A media node as a process of its own, on the test's Redis, ready (its heartbeat is out). */
export async function startNodeProcess(env: Record<string, string>): Promise<LoggedProcess> {
  const node = new LoggedProcess(entry('../../src/main.ts'), {
    ...TEST_NODE_ENV,
    LOG_LEVEL: 'info',
    REDIS_URL: inject('redisUrl'),
    ...env,
  });
  await node.waitFor((l) => l.msg === 'media node ready', 20_000, 'media node ready');
  return node;
}
