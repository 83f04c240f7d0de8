import { fork, type ChildProcess } from 'node:child_process';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stopChild } from '@voicegw/tools';
import type { HopMarks } from '@voicegw/shared';
import {
  isHopsReply,
  isListeningMessage,
  isMemoryReply,
  type ListeningMessage,
  type MemoryReply,
} from '../servers/protocol.js';
import { processCpuMs } from './cpu-time.js';

/** A server under test, running in a child process of its own (a core of its own on 2 cores). */
export interface ChildServer {
  readonly name: string;
  readonly pid: number;
  readonly origin: string;
  /** What the child reported besides its port (see its file in tools/bench/servers/). */
  readonly info: Readonly<Record<string, string>>;
  /** CPU time the child has used so far (ms); undefined where it cannot be read. */
  cpuMs(): number | undefined;
  /** Its memory after a full GC (children that call `answerMemoryRequests`). */
  memory(): Promise<MemoryReply>;
  /** Its hop stamps since the last call (children that call `answerHopsRequests`). */
  hops(): Promise<HopMarks>;
  stop(): Promise<void>;
}

export interface ChildServerOptions {
  /** File under tools/bench/servers/, e.g. `api-server.ts`. */
  readonly file: string;
  readonly env?: Readonly<Record<string, string>>;
  /** Write a V8 CPU profile of the child to `<dir>/<file name>/` when it stops. */
  readonly cpuProfileDir?: string | undefined;
  /** More node flags, e.g. `--expose-gc` for memory figures. */
  readonly execArgv?: readonly string[];
  /** Discard the child's stdout (its production log lines), which would interleave the report. */
  readonly discardStdout?: boolean;
}

const STARTUP_TIMEOUT_MS = 30_000;

/** Forks `tsx tools/bench/servers/<file>` and waits for the port it reports over IPC. */
export async function startChildServer(options: ChildServerOptions): Promise<ChildServer> {
  const script = fileURLToPath(new URL(`../servers/${options.file}`, import.meta.url));
  const execArgv = ['--import', 'tsx', ...(options.execArgv ?? [])];
  if (options.cpuProfileDir !== undefined) {
    const dir = join(options.cpuProfileDir, basename(options.file, '.ts'));
    execArgv.push('--cpu-prof', `--cpu-prof-dir=${dir}`);
  }
  const child = fork(script, [], {
    execArgv,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', options.discardStdout ? 'ignore' : 'inherit', 'inherit', 'ipc'],
  });
  const listening = await listeningPort(child, options.file);
  return {
    name: options.file,
    pid: child.pid ?? -1,
    origin: `http://127.0.0.1:${listening.port}`,
    info: listening.info ?? {},
    cpuMs: () => (child.pid === undefined ? undefined : processCpuMs(child.pid)),
    memory: () => ask(child, `${options.file} did not report its memory`, 'memory', isMemoryReply),
    hops: async () =>
      (await ask(child, `${options.file} did not report its hops`, 'hops', isHopsReply)).marks,
    stop: () => stopChild(child),
  };
}

async function listeningPort(child: ChildProcess, file: string): Promise<ListeningMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      child.kill('SIGKILL');
      reject(new Error(`${file} did not report a port within ${STARTUP_TIMEOUT_MS} ms`));
    }, STARTUP_TIMEOUT_MS);
    const onMessage = (message: unknown): void => {
      if (!isListeningMessage(message)) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code: number | null): void => {
      cleanup();
      reject(new Error(`${file} exited with code ${code ?? 'null'} before listening`));
    };
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Sends `{type}` to the child and resolves with its first reply that `is` accepts. */
async function ask<R>(
  child: ChildProcess,
  failure: string,
  type: string,
  is: (message: unknown) => message is R,
): Promise<R> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(failure));
    }, 10_000);
    const onMessage = (message: unknown): void => {
      if (!is(message)) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(message);
    };
    child.on('message', onMessage);
    child.send({ type });
  });
}
