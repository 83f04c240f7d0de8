import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { stopChild } from '../redis-server.js';

/** Preloaded into each child: it ends when the launcher is gone (tether.ts). */
const TETHER = new URL('./tether.ts', import.meta.url).href;

const COLORS = [36, 35, 33, 32, 34, 31];

/** One process of the gateway started by the launcher, its output prefixed with its name. */
export interface Child {
  readonly name: string;
  readonly process: ChildProcess;
  stop(): Promise<void>;
}

export function startChild(
  name: string,
  script: string,
  env: NodeJS.ProcessEnv,
  onExit: (name: string, code: number | null) => void,
  index: number,
): Child {
  // A process group of its own: Ctrl-C (or a signal to the launcher's group) reaches only the
  // launcher, which stops the children one by one, each with one signal, in its order. The IPC
  // channel is the tether: the child ends when the launcher does, even one killed outright.
  const child = spawn(process.execPath, ['--import', 'tsx', '--import', TETHER, script], {
    env,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
  });
  const tag = `\u001b[${COLORS[index % COLORS.length] ?? 36}m${name.padEnd(10)}\u001b[0m|`;
  for (const stream of [child.stdout, child.stderr]) {
    if (stream)
      createInterface({ input: stream }).on('line', (line) => console.log(`${tag} ${line}`));
  }
  child.once('exit', (code) => onExit(name, code));
  return { name, process: child, stop: () => stopChild(child) };
}
