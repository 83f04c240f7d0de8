import type { Socket } from 'node:net';

const coalesced = new WeakSet<Socket>();

/**
 * Makes every write to `socket` made in one turn of the event loop leave together: the socket is
 * corked at the turn's first write and uncorked before the turn ends (process.nextTick, so no
 * latency is added), and Node hands the turn's writes to the kernel in one writev. With
 * TCP_NODELAY on, as for every socket of ours to Redis and FreeSWITCH, each write would
 * otherwise be a segment of its own, a syscall on our side and a wake-up on the peer's: under
 * load a turn carries dozens of commands, and one segment for them all is most of the CPU that
 * a Redis round trip costs the sender. Wrapping `write` on the instance covers writers we do not
 * own (ioredis). A socket is wrapped once.
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
      process.nextTick(uncork);
    }
    return write(...args);
  }) as Socket['write'];
}
