import { once } from 'node:events';
import { createServer, Socket, type AddressInfo } from 'node:net';
import { afterAll, expect, it, vi } from 'vitest';
import { kafkaSocketFactory } from '../src/bus/kafka-socket.js';

const setNoDelay = vi.spyOn(Socket.prototype, 'setNoDelay');
const server = createServer((socket) => socket.end());
afterAll(() => {
  server.close();
  vi.restoreAllMocks();
});

it("the Kafka bus's sockets turn Nagle off (kafkajs's own factory leaves it on)", async () => {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  let connected = false;
  const socket = kafkaSocketFactory({
    host: '127.0.0.1',
    port,
    ssl: undefined as never,
    onConnect: () => (connected = true),
  });
  await vi.waitFor(() => expect(connected).toBe(true));
  const calls = setNoDelay.mock.calls.filter((_, i) => setNoDelay.mock.contexts[i] === socket);
  expect(calls).toEqual([[true]]);
  socket.destroy();
});
