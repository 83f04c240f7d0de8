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

const coalesced = new WeakSet<Socket>();

/**
 * Makes the writes to `socket` of one callback, or of one turn (see WriteFlush), leave together:
 * the socket is corked at the first write and uncorked when they are due, and Node hands them
 * to the kernel in one writev. With TCP_NODELAY on, as for every socket of ours to Redis and
 * FreeSWITCH, each write would otherwise be a segment of its own, a syscall on our side and a
 * wake-up on the peer's; on loopback the sender's syscall also runs the receiver's side of TCP.
 * Wrapping `write` on the instance covers writers we do not own (ioredis). A socket is wrapped
 * once.
 */
export function coalesceWrites(socket: Socket, flush: WriteFlush): void {
  if (coalesced.has(socket)) return;
  coalesced.add(socket);
  const write = socket.write.bind(socket);
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  const due = flush === 'turn' ? atEndOfTurn : (fn: () => void) => process.nextTick(fn);
  socket.write = ((...args: Parameters<Socket['write']>): boolean => {
    if (!corked) {
      corked = true;
      socket.cork();
      due(uncork);
    }
    return write(...args);
  }) as Socket['write'];
}
