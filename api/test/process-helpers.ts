// The gateway's processes as the launcher starts them (shared/src/dev/launcher/), for tests of
// process faults: each a real child process whose exit a test can observe and assert on.
import { resolve } from 'node:path';
import { freePort } from '@voicegw/shared';
import { vi } from 'vitest';
import { childEnv, startChild, type Child } from '@voicegw/shared/launcher';

export const ROOT = resolve(import.meta.dirname, '../..');

/** A child process of the gateway and how it ended, if it did. */
export class GatewayProcess {
  /** Exit code, or null while running (or killed by a signal: `signal` then says which). */
  code: number | null = null;
  signal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;
  readonly child: Child;

  constructor(name: string, script: string, env: Record<string, string>, index = 0) {
    let done!: () => void;
    this.exited = new Promise((resolve) => (done = resolve));
    this.child = startChild(
      name,
      resolve(ROOT, script),
      childEnv({ LOG_LEVEL: 'fatal', ...env }),
      (_name, code) => {
        this.code = code;
        this.signal = this.child.process.signalCode;
        done();
      },
      index,
    );
  }

  get alive(): boolean {
    return this.child.process.exitCode === null && this.child.process.signalCode === null;
  }

  kill(signal: NodeJS.Signals): void {
    this.child.process.kill(signal);
  }

  /** SIGTERM, then SIGKILL after 5 s (the launcher's stop). */
  stop(): Promise<void> {
    return this.child.stop();
  }
}

/** Polls `url` until it answers 200 (a process is up), within `ms`. */
export async function healthy(url: string, ms = 30_000): Promise<void> {
  await vi.waitFor(
    async () => {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) }).catch(() => undefined);
      if (!res?.ok) throw new Error(`${url} not healthy within ${ms} ms`);
    },
    { timeout: ms, interval: 100 },
  );
}

/** Free loopback ports, one per name. */
export async function freePorts<N extends string>(...names: N[]): Promise<Record<N, number>> {
  const ports = {} as Record<N, number>;
  for (const name of names) ports[name] = await freePort();
  return ports;
}
