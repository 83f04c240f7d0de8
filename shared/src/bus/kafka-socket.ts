import { connect, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

const KEEP_ALIVE_DELAY_MS = 60_000;

/**
 * kafkajs's own socket factory (src/network/socketFactory.js: TLS with SNI for host names,
 * keep-alive after 60 s) plus TCP_NODELAY, which kafkajs leaves off. It writes each request
 * whole, but with Nagle on, a small request written while an earlier one on the same connection
 * is unacknowledged waits for that acknowledgement: kafkajs keeps a broker's fetches on a
 * connection of their own, but sends everything else (produce, offset commits, heartbeats) on one,
 * several in flight, so a commit or heartbeat behind a produce waited for the broker's answer or
 * its delayed ACK.
 */
export const kafkaSocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket: Socket = ssl
    ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : connect({ host, port }, onConnect);
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
  socket.setNoDelay(true);
  return socket;
};
