import { connect, isIP, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

const KEEP_ALIVE_DELAY_MS = 60_000;

/**
 * kafkajs's own socket factory (src/network/socketFactory.js: TLS with SNI for host names,
 * keep-alive after 60 s) plus TCP_NODELAY, which kafkajs leaves off. It writes each request
 * whole, but with Nagle on, a request written while an earlier one is unacknowledged waits for
 * that acknowledgement: an offset commit or heartbeat written during a long-poll fetch was held
 * until the fetch came back, and the next fetch behind the commit's answer.
 */
export const kafkaSocketFactory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
  const socket: Socket = ssl
    ? connectTls({ host, port, ...(isIP(host) ? {} : { servername: host }), ...ssl }, onConnect)
    : connect({ host, port }, onConnect);
  socket.setKeepAlive(true, KEEP_ALIVE_DELAY_MS);
  socket.setNoDelay(true);
  return socket;
};
