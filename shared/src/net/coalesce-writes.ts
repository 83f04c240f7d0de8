import type { Socket } from 'node:net';
import { atEndOfTurn } from './end-of-turn.js';

/**
 * When the writes gathered on a coalesced socket leave:
 * - `callback`: after the callback that made them and its ticks (process.nextTick);
 * - `turn`: at the end of the event-loop turn, in its check phase (atEndOfTurn), after every
 *   I/O callback of the poll and the promise chains they started.
 *
 * `turn` makes fewer writes where a turn carries many independent ones: the media node's
 * events and commands of dozens of calls (a third fewer write syscalls per call, 12-14 % less
 * CPU per call than `callback` in the media-node benchmark, at the same calls/s), and the api's
 * requests with their one ScriptBatcher run. It costs a request/response pipeline throughput:
 * the webhook dispatcher's Redis round trips then wait for the rest of the turn, and with `turn`
 * it delivered 0.57-0.63 of the raw loop's webhooks/s at 1.3-1.5 times its CPU per webhook,
 * against 0.79-0.87 and 1.08-1.29 with `callback`, its setting (the default).
 */
export type WriteFlush = 'callback' | 'turn';

/**
 * The longest a write waits for its callback or turn to end: a later write of the same turn
 * takes it out at once, with whatever is gathered. A turn of a busy process can carry hundreds of
 * events or requests: under the media-node benchmark's calls, the simulator held the writes of
 * one turn in ten for 1.3-1.6 ms or more. With the bound a busy turn costs at most one more write
 * per quarter millisecond, and the benchmark's commands at maximum ran 1,790-1,910 a second
 * against 1,710-1,760 (three runs of each, alternated).
 */
export const MAX_HOLD_MS = 0.25;

const coalesced = new WeakSet<Socket>();

/**
 * Makes the writes to `socket` of one callback, or of one turn (see WriteFlush), leave together
 * (within MAX_HOLD_MS): the socket is corked at the first write and uncorked when they are due,
 * and Node hands them to the kernel in one writev. With TCP_NODELAY on, as for every socket of
 * ours to Redis and FreeSWITCH, each write would otherwise be a segment of its own, a syscall on
 * our side and a wake-up on the peer's; on loopback the sender's syscall also runs the
 * receiver's side of TCP. Wrapping `write` on the instance covers writers we do not own
 * (ioredis). A socket is wrapped once.
 */
export function coalesceWrites(socket: Socket, flush: WriteFlush): void {
  if (coalesced.has(socket)) return;
  coalesced.add(socket);
  const write = socket.write.bind(socket);
  let corked = false;
  let heldSince = 0;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  const due = flush === 'turn' ? atEndOfTurn : (fn: () => void) => process.nextTick(fn);
  socket.write = ((...args: Parameters<Socket['write']>): boolean => {
    if (!corked) {
      corked = true;
      heldSince = performance.now();
      socket.cork();
      due(uncork);
      return write(...args);
    }
    const ok = write(...args);
    const now = performance.now();
    if (now - heldSince > MAX_HOLD_MS) {
      // Out with what is gathered; the socket stays corked for the rest of the turn. The clock
      // restarts first, so that a write made while uncorking cannot cork the socket twice.
      heldSince = now;
      socket.uncork();
      socket.cork();
    }
    return ok;
  }) as Socket['write'];
}
