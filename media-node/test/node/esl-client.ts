import { createLogger } from '@voicegw/shared';
import type { Simulator } from '@voicegw/simulator';
import { EslClient } from '../../src/esl/client.js';
import type { EventSubscription } from '../../src/esl/event.js';

/** The node's own event-socket client, connected to a simulator with this subscription. */
export async function connectEslClient(
  sim: Simulator,
  subscription: EventSubscription,
): Promise<EslClient> {
  const client = new EslClient(
    {
      host: '127.0.0.1',
      port: sim.eslPort,
      password: sim.password,
      connectTimeoutMs: 3000,
      requestTimeoutMs: 3000,
      reconnectMinMs: 100,
      reconnectMaxMs: 1000,
      idlePingMs: 60_000,
      subscription,
    },
    createLogger({ name: 'test', level: 'silent' }),
  );
  client.start();
  await client.waitConnected(3000);
  return client;
}
