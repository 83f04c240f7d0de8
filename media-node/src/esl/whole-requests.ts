import { coalesceWrites } from '@voicegw/shared';
import type { ModeslConnection } from './modesl.js';

/**
 * modesl writes each line of a request with a `socket.write` of its own and leaves Nagle's
 * algorithm on, so the kernel held the second write of every request until FreeSWITCH
 * acknowledged the first, and FreeSWITCH's kernel delays that acknowledgement ~40 ms: each
 * request waited ~40 ms on a real FreeSWITCH. This turns Nagle off (TCP_NODELAY) and replaces
 * the connection's `send`, which sendRecv, api, bgapi and auth all go through, with one that
 * writes each request whole. The requests of one event-loop turn leave in one write
 * (coalesceWrites), so that without Nagle a burst still costs one segment and one wake-up of
 * FreeSWITCH, not one per request.
 */
export function sendWholeRequests(conn: ModeslConnection): void {
  const socket = conn.socket;
  if (!socket) return;
  socket.setNoDelay(true);
  coalesceWrites(socket, 'turn');
  conn.send = (command, headers) => {
    let request = `${command}\n`;
    if (headers) for (const name of Object.keys(headers)) request += `${name}: ${headers[name]}\n`;
    socket.write(`${request}\n`);
  };
}
