import type { Socket } from 'node:net';
import { atEndOfTurn } from './end-of-turn.js';

const coalesced = new WeakSet<Socket>();

/**
 * Makes every write to `socket` made in one turn of the event loop leave together: the socket is
 * corked at the turn's first write and uncorked in the turn's check phase (atEndOfTurn), and
 * Node hands the turn's writes to the kernel in one writev. A turn is every I/O callback of one
 * poll and the promise chains they start: under load that is dozens of commands, where
 * process.nextTick would flush after the first callback's synchronous part and let each later
 * continuation write alone. The wait is the rest of the turn, nothing when idle. With
 * TCP_NODELAY on, as for every socket of ours to Redis and FreeSWITCH, each write would
 * otherwise be a segment of its own, a syscall on our side and a wake-up on the peer's; on
 * loopback the sender's syscall also runs the receiver's side of TCP, so those syscalls were a
 * third of the media node's CPU per call. Wrapping `write` on the instance covers writers we do
 * not own (ioredis). A socket is wrapped once.
 */
export function coalesceWrites(socket: Socket): void {
  if (coalesced.has(socket)) return;
  coalesced.add(socket);
  const write = socket.write.bind(socket);
  let corked = false;
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  socket.write = ((...args: Parameters<Socket['write']>): boolean => {
    if (!corked) {
      corked = true;
      socket.cork();
      atEndOfTurn(uncork);
    }
    return write(...args);
  }) as Socket['write'];
}
