// One host-pause probe (see host-pauses.ts). Started pinned to one CPU, its main thread then
// raised to real-time priority, it sleeps SLEEP_MS at a time and writes `<epoch ms> <gap ms>` to
// stdout for every wake-up that came more than `argv[2]` ms after the previous one. Nothing inside
// the machine outranks it, so such a gap is time in which the hypervisor ran nothing on this CPU.
//
// Plain JavaScript run by plain node: a TypeScript loader (tsx) adds a thread of its own, and a
// busy thread at the probe's priority would starve every process on its CPU. The loop sleeps in
// Atomics.wait and allocates next to nothing, so the probe never pauses for garbage collection.
// It exits when its parent is gone.
import { readFileSync, writeSync } from 'node:fs';

const SLEEP_MS = 1;
const PARENT_CHECK_MS = 1000;

const thresholdMs = Number(process.argv[2]);
if (!(thresholdMs > SLEEP_MS)) throw new Error(`threshold must exceed ${SLEEP_MS} ms`);

/** The parent's pid now; `process.ppid` is read once at startup and never changes. */
const parentPid = () =>
  Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[1]);

const parent = parentPid();
const cell = new Int32Array(new SharedArrayBuffer(4));
writeSync(1, 'ready\n');
let last = performance.now();
let checkedParent = last;
for (;;) {
  Atomics.wait(cell, 0, 0, SLEEP_MS);
  const now = performance.now();
  if (now - last > thresholdMs) {
    writeSync(1, `${(performance.timeOrigin + last).toFixed(1)} ${(now - last).toFixed(1)}\n`);
  }
  last = now;
  if (now - checkedParent > PARENT_CHECK_MS) {
    if (parentPid() !== parent) process.exit(0);
    checkedParent = now;
  }
}
