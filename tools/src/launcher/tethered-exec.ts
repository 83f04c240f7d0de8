// `node --import tsx tethered-exec.ts <program> [args…]`: runs a program that is not Node
// (redis-server) so that it, too, ends with the launcher. This wrapper holds the launcher's IPC
// channel, passes SIGINT and SIGTERM on, stops the program when the channel closes, and exits
// as the program did. Its output is the program's own.
import { spawn } from 'node:child_process';
import { ORPHAN_GRACE_MS, tetherToParent } from './tethered.js';

const [program, ...args] = process.argv.slice(2);
if (program === undefined) {
  console.error('usage: tethered-exec.ts <program> [args…]');
  process.exit(2);
}
const child = spawn(program, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
tetherToParent(() => {
  child.kill('SIGTERM');
  // Before this wrapper's own deadline: the program must not outlive it.
  setTimeout(() => child.kill('SIGKILL'), ORPHAN_GRACE_MS - 1_000).unref();
});
child.once('error', (error) => {
  console.error(`${program}: ${error.message}`);
  process.exit(127);
});
child.once('exit', (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
