const due: Array<() => void> = [];
let scheduled = false;

/**
 * Runs `fn` in this turn's check phase (setImmediate), after the I/O callbacks of the turn and
 * the promise chains they started. What such a callback schedules here runs in the same check
 * phase: a batch flushed at the end of a turn (ScriptBatcher) writes to a coalesced socket,
 * whose writes must leave in that turn too. With a setImmediate each, they would wait a whole
 * loop iteration, through the next poll's callbacks, before reaching the kernel.
 */
export function atEndOfTurn(fn: () => void): void {
  due.push(fn);
  if (!scheduled) {
    scheduled = true;
    setImmediate(runDue);
  }
}

function runDue(): void {
  try {
    // Callbacks may add more while these run: they run too, in order.
    for (let i = 0; i < due.length; i++) due[i]!();
  } finally {
    due.length = 0;
    scheduled = false;
  }
}
